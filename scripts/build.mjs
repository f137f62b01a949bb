#!/usr/bin/env node
// Builds dist/, the JavaScript that bin/regdata.mjs runs: no TypeScript compiler at run time.
//
//   node scripts/build.mjs      (npm run build; `npm install` and `npm ci` run it as the `prepare` script)
//
// 1. tsc -p tsconfig.build.json compiles src/ and ingest/ to dist/src and dist/ingest, rewriting the
//    `.ts` of relative imports to `.js` (rewriteRelativeImportExtensions). It is incremental
//    (dist/.tsbuildinfo): a build with nothing changed only checks, a few seconds.
// 2. Every other file under src/ and ingest/ (the dashboard's static files, the reference and official
//    data files, the worker-thread entries *.mjs) is copied to the same place under dist/, so code that
//    reads a file beside itself (`new URL('./static/app.js', import.meta.url)`) finds it in both layouts.
// 3. Files in dist/ whose source is gone are removed, so dist/ is exactly the build of this tree.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
const DIST = path.join(ROOT, 'dist');
const TREES = ['src', 'ingest'];
const BUILD_INFO = path.join(DIST, '.tsbuildinfo');

const isTypeScript = (name) => name.endsWith('.ts');
const jsName = (name) => name.replace(/\.ts$/, '.js');

/** Relative paths (from ROOT) of every file under the source trees. */
function sourceFiles() {
  const files = [];
  for (const tree of TREES) {
    for (const entry of fs.readdirSync(path.join(ROOT, tree), { recursive: true, withFileTypes: true })) {
      if (entry.isFile()) files.push(path.relative(ROOT, path.join(entry.parentPath, entry.name)));
    }
  }
  return files;
}

function tsc() {
  const bin = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const r = spawnSync(process.execPath, [bin, '-p', path.join(ROOT, 'tsconfig.build.json')], {
    stdio: 'inherit',
  });
  if (r.status !== 0) {
    console.error(`build: tsc failed (exit ${r.status ?? r.signal}); dist/ is not usable`);
    process.exit(1);
  }
}

const sources = sourceFiles();
const expected = new Set(
  sources.filter((f) => !f.endsWith('.d.ts')).map((f) => (isTypeScript(f) ? jsName(f) : f)),
);

tsc();
// An incremental tsc trusts its build info and does not re-emit an output someone deleted; rebuild in full then.
const missing = sources.filter(
  (f) => isTypeScript(f) && !f.endsWith('.d.ts') && !fs.existsSync(path.join(DIST, jsName(f))),
);
if (missing.length > 0) {
  fs.rmSync(BUILD_INFO, { force: true });
  tsc();
}

let copied = 0;
for (const rel of sources) {
  if (isTypeScript(rel)) continue;
  const from = path.join(ROOT, rel);
  const to = path.join(DIST, rel);
  const src = fs.statSync(from);
  const dst = fs.statSync(to, { throwIfNoEntry: false });
  // utimes keeps the time to about a millisecond.
  if (dst && dst.size === src.size && Math.abs(dst.mtimeMs - src.mtimeMs) < 1) continue;
  fs.mkdirSync(path.dirname(to), { recursive: true });
  fs.copyFileSync(from, to);
  fs.utimesSync(to, src.atime, src.mtime);
  copied++;
}

let removed = 0;
for (const tree of TREES) {
  const dir = path.join(DIST, tree);
  if (!fs.existsSync(dir)) continue;
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const rel = path.relative(DIST, path.join(entry.parentPath, entry.name));
    if (!expected.has(rel)) {
      fs.rmSync(path.join(DIST, rel));
      removed++;
    }
  }
}

console.error(`build: dist/ up to date (${expected.size} files; ${copied} copied, ${removed} removed)`);
