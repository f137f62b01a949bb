// A worker thread does not inherit the TypeScript loader its parent registered (bin/regdata.mjs, vitest),
// so it registers tsx itself before loading the build.
import { register } from 'tsx/esm/api';

register();
await import('./serving-build-thread.ts');
