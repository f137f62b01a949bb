import { parseArgs } from 'node:util';
import type { Config } from '../../config.ts';
import { SnapshotStore } from '../../contract/snapshot-store.ts';
import { startServer } from '../../server.ts';
import { EXIT } from '../errors.ts';
import { out } from '../output.ts';

export const serveHelp = `regdata serve [--demo-if-empty] [--dev]

Serves the API on HOST:PORT from the live snapshot under REGDATA_DATA_DIR, until SIGINT or SIGTERM
(in-flight requests finish first). --dev (what \`npm start\` passes; the same as REGDATA_DEV_MODE=true)
is development mode: account e-mails are not sent but shown at /dev/outbox; it runs only on a loopback
HOST. With --demo-if-empty (what \`npm start\` passes too), a first start with no
snapshot builds the demo world, writes it out as the registers' official files and runs the real ingest on
them (so the nightly code path runs on every fresh start), and a wallet with no account gets a demo account
whose key is printed once. A snapshot promoted later (\`regdata ingest\`, \`regdata snapshots promote\`) is
picked up without a restart.`;

export async function serveCommand(args: string[], config: Config): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      'demo-if-empty': { type: 'boolean', default: false },
      dev: { type: 'boolean', default: false },
    },
  });
  if (values.dev) config = { ...config, devMode: true };
  const store = new SnapshotStore(config.dataDir);
  if (values['demo-if-empty'] && store.currentId() === null) {
    out.info(
      `no snapshot in ${config.dataDir}: building the demo world (scale ${config.demoScale}) and ingesting it ...`,
    );
    const { buildDemoThroughIngest } = await import('../../../ingest/official/demo.ts');
    const started = Date.now();
    const { snapshotId } = await buildDemoThroughIngest({
      dataDir: config.dataDir,
      scale: config.demoScale,
      seed: config.demoSeed,
      log: (msg: string) => out.info(`  ${msg}`),
    });
    out.info(`demo snapshot ${snapshotId} ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }

  const server = await startServer(config);
  const closed = new Promise<void>((resolve) => server.app.server.once('close', () => resolve()));
  out.info(`regdata serving ${server.url} (snapshot ${store.currentId() ?? 'none'})`);

  if (values['demo-if-empty']) {
    const demo = await server.wallet.createDemoKeyIfEmpty();
    const key = demo?.key ?? '<your key>';
    if (demo) {
      out.info(
        `\nDemo account ${demo.email} (plan ${demo.plan}). Its API key, shown this once:\n\n  ${demo.key}\n`,
      );
    } else {
      out.info(
        '\nThe wallet already has accounts; make a key with: npx regdata keys create --email you@example.com --kind standard --credits 20\n',
      );
    }
    const base = `${server.url}/api/v1/data`;
    out.info(
      [
        'Try:',
        `  curl -H 'Authorization: Bearer ${key}' '${base}/countries'`,
        `  curl -H 'Authorization: Bearer ${key}' '${base}/count?country=EE&company_name=ehitus'`,
        `  curl -H 'Authorization: Bearer ${key}' '${base}/companies?country=EE&page_size=5&sort_by=annual_revenue&sort_dir=desc'`,
        `  API docs: ${server.url}/docs`,
        `  Dashboard (sign up, keys, in-app search): ${server.url}/`,
        ...(config.devMode
          ? [`  Development outbox (sign-up and reset e-mails): ${server.url}/dev/outbox`]
          : []),
      ].join('\n'),
    );
  }
  await closed;
  return EXIT.ok;
}
