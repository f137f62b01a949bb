import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Config } from '../../config.ts';
import { SNAPSHOT_ID, SnapshotStore } from '../../contract/snapshot-store.ts';
import {
  adoptStaging,
  parseDataLocation,
  pullSnapshot,
  pushSnapshot,
  SnapshotTransferError,
  type TransferOptions,
} from '../../contract/snapshot-transfer.ts';
import { pruneSnapshots } from '../../../ingest/pipeline/publish.ts';
import { EXIT, UsageError } from '../errors.ts';
import { out } from '../output.ts';

export const snapshotsHelp = `regdata snapshots list [--json]
regdata snapshots promote <id>
regdata snapshots rollback
regdata snapshots pull <src> [--snapshot <id>] [--no-promote] [--keep <n>] [--bwlimit <KiB/s>] [--rsync] [--ssh <cmd>]
regdata snapshots push <dest> [the same options] [--remote-regdata <cmd>]

list: snapshots on disk, oldest first, with the live one marked.
promote: make <id> live (atomic pointer swap).
rollback: make the snapshot before the live one live again.
pull: copy a snapshot from another data folder into this one (REGDATA_DATA_DIR), verify every file
  against the SHA-256 checksums in its snapshot.json, then rename it into place and make it live.
push: the same in the other direction: this data folder's snapshot into <dest>.

<src> and <dest> are data folders (the folder holding \`current\` and \`snapshots/\`): a local path, or a
folder on another machine as \`host:/path\` or \`ssh://[user@]host[:port]/path\`, copied with the system
rsync over ssh (install: apt-get install rsync openssh-client, on both machines). A copy is made in a
hidden staging folder and verified on the machine that serves it; a running server there never sees it
before it is complete and verified. A push to a remote host runs \`regdata snapshots adopt\` there over
ssh for that step (docs/deploy.md).

  --snapshot <id>          which snapshot (default: the source's live one)
  --no-promote             copy and verify only; --promote (the default) makes it live
  --keep <n>               snapshots kept on the destination after promotion (default 3; the live one always)
  --bwlimit <KiB/s>        pace the copy (rsync's --bwlimit; a local copy is paced the same way)
  --rsync                  copy a local folder with rsync too (default: a plain file copy)
  --ssh <cmd>              rsync's remote shell, e.g. "ssh -i /etc/regdata/id_ed25519" (default ssh)
  --remote-regdata <cmd>   push: how to run regdata on the remote host (default regdata)

Exit codes: 0 copied (and promoted), 1 the copy failed or did not verify (a checksum mismatch names the
file; nothing is promoted and the live snapshot keeps serving), 2 a usage error.`;

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
  if (sub === 'pull' || sub === 'push' || sub === 'adopt') return transfer(sub, rest, store);
  throw new UsageError(`unknown subcommand: snapshots ${sub ?? ''}\n\n${snapshotsHelp}`);
}

function positiveInt(value: string | undefined, option: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < 1) {
    throw new UsageError(`${option} takes a whole number of at least 1, got ${JSON.stringify(value)}`);
  }
  return Number(value);
}

async function transfer(
  sub: 'pull' | 'push' | 'adopt',
  args: string[],
  store: SnapshotStore,
): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: {
      snapshot: { type: 'string' },
      promote: { type: 'boolean' },
      'no-promote': { type: 'boolean', default: false },
      keep: { type: 'string' },
      bwlimit: { type: 'string' },
      rsync: { type: 'boolean', default: false },
      ssh: { type: 'string' },
      'remote-regdata': { type: 'string' },
    },
    allowPositionals: true,
    strict: true,
  });
  if (values.promote && values['no-promote']) throw new UsageError('--promote and --no-promote contradict');
  const promote = !values['no-promote'];
  const keep = positiveInt(values.keep, '--keep');
  if (values.snapshot !== undefined && !SNAPSHOT_ID.test(values.snapshot)) {
    throw new UsageError(`not a snapshot id: ${JSON.stringify(values.snapshot)}`);
  }
  const expected = sub === 'adopt' ? 2 : 1;
  if (positionals.length !== expected) {
    throw new UsageError(
      sub === 'adopt'
        ? 'usage: regdata snapshots adopt <data-dir> <staging-folder-name> (what a push runs on the remote host)'
        : `usage: regdata snapshots ${sub} <${sub === 'pull' ? 'src' : 'dest'}> [options]`,
    );
  }
  const opts: TransferOptions = {
    promote,
    log: (msg) => out.info(msg),
    ...(values.snapshot !== undefined && { snapshotId: values.snapshot }),
    ...(keep !== undefined && { keep }),
    ...(values.bwlimit !== undefined && { bwlimitKiB: positiveInt(values.bwlimit, '--bwlimit')! }),
    ...(values.rsync && { useRsync: true }),
    ...(values.ssh !== undefined && { ssh: values.ssh }),
    ...(values['remote-regdata'] !== undefined && { remoteRegdata: values['remote-regdata'] }),
  };
  try {
    if (sub === 'adopt') {
      // Run on the receiving machine (by a remote push): the data folder is named, not taken from the
      // environment, because a command run over ssh does not see the service's environment file.
      const target = new SnapshotStore(positionals[0]!);
      const result = await adoptStaging(target, positionals[1]!, opts);
      if (result.promoted) pruneSnapshots(target, keep ?? 3);
      out.line(`snapshot ${result.snapshotId} verified${result.promoted ? ' and live' : ''}`);
      return EXIT.ok;
    }
    const location = parseDataLocation(positionals[0]!);
    if (sub === 'pull') {
      const result = await pullSnapshot(store, location, opts);
      if (result.promoted) pruneSnapshots(store, keep ?? 3);
      out.line(
        `snapshot ${result.snapshotId} ${result.copied ? 'pulled' : 'present'}${result.promoted ? ', live' : ''}`,
      );
    } else {
      const result = await pushSnapshot(store, location, opts);
      if (result.promoted && location.kind === 'dir')
        pruneSnapshots(new SnapshotStore(location.path), keep ?? 3);
      out.line(`snapshot ${result.snapshotId} pushed${result.promoted ? ', live' : ''}`);
    }
    return EXIT.ok;
  } catch (err) {
    if (err instanceof SnapshotTransferError) {
      out.error(err.message);
      return EXIT.failed;
    }
    throw err;
  }
}
