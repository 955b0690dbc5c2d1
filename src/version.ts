// The version is read in the lowest layer, so that the OpenAPI documents can say it too.
export { packageVersion } from './domain/package-version.js';
