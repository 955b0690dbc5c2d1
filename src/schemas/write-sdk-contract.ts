import { rmSync, writeFileSync } from 'node:fs';
import { buildSdk } from './build-sdk.js';
import { sdkContractSource } from './typescript-source.js';

// `npm run sdk`: the SDK's types from the schemas, then sdk/dist rebuilt (ESM and CommonJS).
writeFileSync('sdk/src/contract.ts', sdkContractSource());
console.log('wrote sdk/src/contract.ts');
rmSync('sdk/dist', { recursive: true, force: true });
buildSdk();
console.log('built sdk/dist (ESM) and sdk/dist/cjs (CommonJS)');
