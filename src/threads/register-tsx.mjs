// Preloaded (`--import`) into a worker thread started from the TypeScript sources (the test
// runner, `npm run dev`; see start-worker.ts): registers tsx's loader for this thread's ES modules
// before its own module loads. On Node 20 a worker does not inherit its parent's loader, and tsx's
// own `--import tsx` registers it on the main thread only. Plain JavaScript: nothing loads
// TypeScript yet when it runs. Compiled, no thread loads it.
import { register } from 'tsx/esm/api';

register();
