import { execFileSync } from 'node:child_process';
import path from 'node:path';

/**
 * The system tools some tests drive, as scripts/test-setup.sh names them (its apt package names). That script
 * is the one place that knows how to find and install them; the global setups ask it (`--check`) which are
 * missing and hand the answer to every test file as `inject('missingTools')`.
 */
export type Tool = 'postgresql' | 'chromium' | 'rsync' | 'mcp-inspector';

const ROOT = path.resolve(import.meta.dirname, '..');

/** CI (.ci/run sets CI=1; so do hosted CI services): a missing tool fails the run, it never skips. */
export const IN_CI = !['', '0', 'false'].includes((process.env['CI'] ?? '').toLowerCase());

let missing: Tool[] | undefined;

export function missingTools(): Tool[] {
  missing ??= execFileSync('bash', [path.join(ROOT, 'scripts', 'test-setup.sh'), '--check'], {
    encoding: 'utf8',
  })
    .split('\n')
    .filter((line): line is Tool => line !== '');
  return missing;
}

/**
 * Under CI, throws: a test whose tool is missing fails the run, it never skips. Elsewhere, returns the
 * warning to print (or null), as the missing tools' tests skip.
 */
export function missingToolsWarning(): string | null {
  const tools = missingTools();
  if (tools.length === 0) return null;
  const fix = '`npm run test:setup` installs them (README, "Running the tests")';
  if (IN_CI) throw new Error(`CI: missing ${tools.join(', ')}; CI runs every test and skips none. ${fix}`);
  return `!! missing ${tools.join(', ')}: the tests that need them were SKIPPED. ${fix}`;
}

/** The Node binary (22.19 or newer) and CLI script that run the MCP Inspector 2 (scripts/test-setup.sh). */
export function mcpInspector(): { node: string; cli: string } {
  const [node, cli] = execFileSync('bash', [path.join(ROOT, 'scripts', 'test-setup.sh'), '--inspector'], {
    encoding: 'utf8',
  })
    .trim()
    .split('\n');
  return { node: node!, cli: cli! };
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** The tools scripts/test-setup.sh --check found missing (empty under CI, which fails instead). */
    missingTools: Tool[];
  }
}
