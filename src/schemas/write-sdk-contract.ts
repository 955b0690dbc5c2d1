import { rmSync, writeFileSync } from 'node:fs';
import { sdkContractSource } from './typescript-source.js';

// `npm run sdk` (step one): the SDK's types from the schemas; the script then rebuilds sdk/dist.
writeFileSync('sdk/src/contract.ts', sdkContractSource());
rmSync('sdk/dist', { recursive: true, force: true });
console.log('wrote sdk/src/contract.ts');
