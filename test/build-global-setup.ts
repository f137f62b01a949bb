import { execFileSync } from 'node:child_process';
import path from 'node:path';

/**
 * Builds dist/ (scripts/build.mjs, incremental: a few seconds when nothing changed). The tests that start
 * the real CLI (`bin/regdata.mjs`: replicas, migrations, snapshot transfer, ...) then run the compiled
 * JavaScript of this very tree, as production does, never a stale build.
 */
export default function setup(): void {
  execFileSync(process.execPath, [path.resolve(import.meta.dirname, '..', 'scripts', 'build.mjs')], {
    stdio: 'inherit',
  });
}
