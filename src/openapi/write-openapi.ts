import { loadConfig } from '../config.js';
import { writeOpenApiFiles } from './openapi-files.js';

// `npm run openapi`: regenerates the committed documents from the schemas, for the shipped
// defaults (no environment: whatever this shell has set is not read).
for (const path of writeOpenApiFiles(process.cwd(), loadConfig({}))) console.log(`wrote ${path}`);
