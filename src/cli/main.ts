import fs from 'node:fs';
import { ConfigError, loadConfig, type Config } from '../config.ts';
import { demoCommand, demoHelp } from './commands/demo.ts';
import { harvestCommand, harvestHelp } from './commands/harvest.ts';
import { ingestCommand, ingestHelp, officialFilesCommand, officialFilesHelp } from './commands/ingest.ts';
import { ordersCommand, ordersHelp } from './commands/orders.ts';
import { serveCommand, serveHelp } from './commands/serve.ts';
import { snapshotsCommand, snapshotsHelp } from './commands/snapshots.ts';
import {
  creditsCommand,
  creditsHelp,
  keysCommand,
  keysHelp,
  subscriptionsCommand,
  subscriptionsHelp,
  usageCommand,
  usageHelp,
  walletCommand,
  walletHelp,
} from './commands/wallet.ts';
import { isAppError } from '../errors/app-error.ts';
import { EXIT, UsageError } from './errors.ts';
import { out } from './output.ts';

interface Command {
  summary: string;
  help: string;
  run: (args: string[], config: Config) => Promise<number>;
}

const COMMANDS: Record<string, Command> = {
  demo: { summary: 'build a synthetic world snapshot (demo data)', help: demoHelp, run: demoCommand },
  snapshots: {
    summary: 'list, promote, roll back, pull or push snapshots',
    help: snapshotsHelp,
    run: snapshotsCommand,
  },
  ingest: {
    summary: 'ingest official register files into a new snapshot',
    help: ingestHelp,
    run: ingestCommand,
  },
  harvest: {
    summary: "fetch a register's answers from its services into a folder ingest reads (PL, SE)",
    help: harvestHelp,
    run: harvestCommand,
  },
  'official-files': {
    summary: "write a snapshot out as the registers' official files",
    help: officialFilesHelp,
    run: officialFilesCommand,
  },
  serve: { summary: 'serve the API (npm start)', help: serveHelp, run: serveCommand },
  keys: { summary: 'create, revoke and list API keys', help: keysHelp, run: keysCommand },
  credits: { summary: 'top up credits or show a balance', help: creditsHelp, run: creditsCommand },
  subscriptions: { summary: 'per-country subscriptions', help: subscriptionsHelp, run: subscriptionsCommand },
  usage: { summary: 'usage per account', help: usageHelp, run: usageCommand },
  orders: { summary: 'confirm or cancel dashboard top-ups and plans', help: ordersHelp, run: ordersCommand },
  wallet: {
    summary: 'check the ledger (wallet audit); move the SQLite wallet to PostgreSQL (wallet migrate)',
    help: walletHelp,
    run: walletCommand,
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

/** The version in package.json (the one place it is written). */
export function version(): string {
  const pkg = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
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
  if (args.includes('--help') || args.includes('-h')) {
    out.line(command.help);
    return EXIT.ok;
  }
  try {
    return await command.run(args, loadConfig());
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
