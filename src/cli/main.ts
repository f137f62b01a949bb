import fs from 'node:fs';
import type { Config } from '../config.ts';
import { EXIT, UsageError } from './errors.ts';
import { out } from './output.ts';

interface Loaded {
  help: string;
  run: (args: string[], config: Config) => Promise<number>;
}

interface Command {
  summary: string;
  /**
   * The command's module, imported only when the command runs or shows its help: `regdata --help` then
   * loads none of them (no DuckDB, fastify or zod), which keeps it under 0.3 s (bench/README.md, "Start-up").
   */
  load: () => Promise<Loaded>;
}

const lazy =
  <M>(load: () => Promise<M>, pick: (m: M) => Loaded) =>
  async (): Promise<Loaded> =>
    pick(await load());
const demo = () => import('./commands/demo.ts');
const ingest = () => import('./commands/ingest.ts');
const wallet = () => import('./commands/wallet.ts');

const COMMANDS: Record<string, Command> = {
  demo: {
    summary: 'build a synthetic world snapshot (demo data)',
    load: lazy(demo, (m) => ({ help: m.demoHelp, run: m.demoCommand })),
  },
  snapshots: {
    summary: 'list, promote, roll back, pull or push snapshots',
    load: lazy(
      () => import('./commands/snapshots.ts'),
      (m) => ({ help: m.snapshotsHelp, run: m.snapshotsCommand }),
    ),
  },
  ingest: {
    summary: 'ingest official register files into a new snapshot',
    load: lazy(ingest, (m) => ({ help: m.ingestHelp, run: m.ingestCommand })),
  },
  harvest: {
    summary: "fetch a register's answers from its services into a folder ingest reads (PL, SE)",
    load: lazy(
      () => import('./commands/harvest.ts'),
      (m) => ({ help: m.harvestHelp, run: m.harvestCommand }),
    ),
  },
  'official-files': {
    summary: "write a snapshot out as the registers' official files",
    load: lazy(ingest, (m) => ({ help: m.officialFilesHelp, run: m.officialFilesCommand })),
  },
  serve: {
    summary: 'serve the API (npm start)',
    load: lazy(
      () => import('./commands/serve.ts'),
      (m) => ({ help: m.serveHelp, run: m.serveCommand }),
    ),
  },
  keys: {
    summary: 'create, revoke and list API keys',
    load: lazy(wallet, (m) => ({ help: m.keysHelp, run: m.keysCommand })),
  },
  credits: {
    summary: 'top up credits or show a balance',
    load: lazy(wallet, (m) => ({ help: m.creditsHelp, run: m.creditsCommand })),
  },
  subscriptions: {
    summary: 'per-country subscriptions',
    load: lazy(wallet, (m) => ({ help: m.subscriptionsHelp, run: m.subscriptionsCommand })),
  },
  usage: {
    summary: 'usage per account',
    load: lazy(wallet, (m) => ({ help: m.usageHelp, run: m.usageCommand })),
  },
  orders: {
    summary: 'confirm or cancel dashboard top-ups and plans',
    load: lazy(
      () => import('./commands/orders.ts'),
      (m) => ({ help: m.ordersHelp, run: m.ordersCommand }),
    ),
  },
  wallet: {
    summary: 'check the ledger (wallet audit); move the SQLite wallet to PostgreSQL (wallet migrate)',
    load: lazy(wallet, (m) => ({ help: m.walletHelp, run: m.walletCommand })),
  },
};

function usage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((k) => k.length));
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`);
  return [
    'usage: regdata <command> [options]',
    '',
    'commands:',
    ...lines,
    '',
    'Run `regdata <command> --help` for a command, `regdata --version` for the version.',
    'Settings come from the environment:',
    '  PORT (8080), HOST (127.0.0.1), REGDATA_DATA_DIR (./data), LOG_LEVEL (info)',
  ].join('\n');
}

/** The version in package.json (the one place it is written): two folders up from src/cli, three from dist/src/cli. */
export function version(): string {
  const file = ['../../package.json', '../../../package.json']
    .map((rel) => new URL(rel, import.meta.url))
    .find((url) => fs.existsSync(url));
  if (!file) throw new Error('package.json not found above src/cli');
  const pkg = JSON.parse(fs.readFileSync(file, 'utf8')) as { version: string };
  return pkg.version;
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  if (name === '--version' || name === '-v' || name === 'version') {
    out.line(`regdata ${version()}`);
    return EXIT.ok;
  }
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    out.line(usage());
    return name ? EXIT.ok : EXIT.usage;
  }
  const command = COMMANDS[name];
  if (!command) {
    out.error(`unknown command: ${name}\n\n${usage()}`);
    return EXIT.usage;
  }
  const { help, run } = await command.load();
  if (args.includes('--help') || args.includes('-h')) {
    out.line(help);
    return EXIT.ok;
  }
  const { ConfigError, loadConfig } = await import('../config.ts');
  const { isAppError } = await import('../errors/app-error.ts');
  try {
    return await run(args, loadConfig());
  } catch (err) {
    // Known errors print one line; anything else keeps its stack for the operator.
    if (err instanceof UsageError || err instanceof ConfigError || isParseArgsError(err)) {
      out.error((err as Error).message);
      return EXIT.usage;
    }
    if (isAppError(err)) {
      out.error(err.message);
      return err.code === 'validation_failed' ? EXIT.usage : EXIT.failed;
    }
    out.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
    return EXIT.failed;
  }
}

function isParseArgsError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS');
}
