// A worker thread does not inherit the TypeScript loader its parent registered (bin/regdata.mjs, vitest),
// so it registers tsx itself before loading the planner.
import { register } from 'tsx/esm/api';

register();
await import('./planner-thread.ts');
