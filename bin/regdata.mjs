#!/usr/bin/env node
// Runs the compiled JavaScript in dist/, which `npm install` and `npm ci` build (the `prepare` script,
// scripts/build.mjs): no TypeScript compiler at run time (bench/README.md, "Start-up").
import fs from 'node:fs';

const entry = new URL('../dist/src/cli/main.js', import.meta.url);
if (!fs.existsSync(entry)) {
  console.error('regdata: dist/ is not built; run `npm run build` (npm install and npm ci run it)');
  process.exit(1);
}
const { main } = await import(entry.href);
process.exitCode = await main(process.argv.slice(2));
