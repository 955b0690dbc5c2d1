import { writeOpenApiFiles } from './openapi-files.js';

// `npm run openapi`: regenerates the committed documents from the schemas.
for (const path of writeOpenApiFiles(process.cwd())) console.log(`wrote ${path}`);
