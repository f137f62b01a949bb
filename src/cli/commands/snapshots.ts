import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Config } from '../../config.ts';
import { SnapshotStore } from '../../contract/snapshot-store.ts';
import { EXIT, UsageError } from '../errors.ts';
import { out } from '../output.ts';

export const snapshotsHelp = `regdata snapshots list [--json]
regdata snapshots promote <id>
regdata snapshots rollback

list: snapshots on disk, oldest first, with the live one marked.
promote: make <id> live (atomic pointer swap).
rollback: make the snapshot before the live one live again.`;

interface Row {
  id: string;
  live: boolean;
  countries: string;
  created_at: string | null;
}

function describe(store: SnapshotStore): Row[] {
  const live = store.currentId();
  return store.list().map((id) => {
    let info: { countries?: string[]; created_at?: string } = {};
    try {
      info = JSON.parse(
        fs.readFileSync(path.join(store.snapshotDir(id), 'snapshot.json'), 'utf8'),
      ) as typeof info;
    } catch {
      // A snapshot without snapshot.json predates it or is damaged; list it anyway so it can be removed.
    }
    return {
      id,
      live: id === live,
      countries: (info.countries ?? []).join(','),
      created_at: info.created_at ?? null,
    };
  });
}

export async function snapshotsCommand(args: string[], config: Config): Promise<number> {
  const [sub, ...rest] = args;
  const store = new SnapshotStore(config.dataDir);
  if (sub === 'list') {
    const { values } = parseArgs({ args: rest, options: { json: { type: 'boolean', default: false } } });
    const rows = describe(store);
    if (values.json) out.json(rows);
    else if (rows.length === 0) out.info(`no snapshots in ${store.snapshotsDir}`);
    else out.table(rows.map((r) => ({ ...r, live: r.live ? '*' : '' })));
    return EXIT.ok;
  }
  if (sub === 'promote') {
    const id = rest[0];
    if (!id || !store.list().includes(id)) throw new UsageError(`no such snapshot: ${id ?? '(missing id)'}`);
    store.promote(id);
    out.info(`snapshot ${id} is live`);
    return EXIT.ok;
  }
  if (sub === 'rollback') {
    const ids = store.list();
    const live = store.currentId();
    const idx = live ? ids.indexOf(live) : -1;
    const previous = idx > 0 ? ids[idx - 1] : undefined;
    if (!previous) {
      out.error('no earlier snapshot to roll back to');
      return EXIT.failed;
    }
    store.promote(previous);
    out.info(`rolled back: ${live} -> ${previous}`);
    return EXIT.ok;
  }
  throw new UsageError(`unknown subcommand: snapshots ${sub ?? ''}\n\n${snapshotsHelp}`);
}
