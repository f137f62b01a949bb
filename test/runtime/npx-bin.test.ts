import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('the regdata command through npx', () => {
  it('is linked from the @regdata/cli package, not declared by the root package', () => {
    // A root bin named like the command sends `npx regdata` down npm's self-install path on every call
    // (packages/cli/regdata.mjs); a linked dependency's bin is run as it is.
    const root = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      bin?: Record<string, string>;
    };
    expect(root.bin?.['regdata']).toBeUndefined();
    const link = path.join(ROOT, 'node_modules', '.bin', 'regdata');
    expect(fs.realpathSync(link)).toBe(path.join(ROOT, 'packages', 'cli', 'regdata.mjs'));
  });

  it('prints the usage, from the checkout, without the network', () => {
    const out = execFileSync('npx', ['--offline', 'regdata', '--help'], { cwd: ROOT, encoding: 'utf8' });
    expect(out).toMatch(/^usage: regdata <command>/m);
    expect(out).toMatch(/\bserve\b/);
  });
});
