// The planner thread's entry. Built (dist/, what bin/regdata.mjs runs), its compiled JavaScript sits beside
// this file. In the source tree (vitest, bench) only the TypeScript does, and a worker thread does not
// inherit the loader its parent registered, so it registers tsx (a devDependency) first.
import fs from 'node:fs';

const compiled = new URL('./planner-thread.js', import.meta.url);
if (fs.existsSync(compiled)) {
  await import(compiled.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('./planner-thread.ts');
}
