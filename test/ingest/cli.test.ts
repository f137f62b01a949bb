import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { ingestCommand, officialFilesCommand, parseIngestCountries } from '../../src/cli/commands/ingest.ts';
import { UsageError } from '../../src/cli/errors.ts';
import { loadConfig } from '../../src/config.ts';
import type { CountryManifest } from '../../src/contract/data-contract.ts';
import { SnapshotStore } from '../../src/contract/snapshot-store.ts';
import { extractZip } from '../../ingest/official/zip.ts';
import { COUNTRY_CODES } from '../../src/contract/countries.ts';

/*
 * `regdata ingest` as an operator meets it: exit codes, the summary, a truncated file named by line and
 * column while the live snapshot keeps serving, the row-count drop guard, and a run killed at any point.
 */

let tmp: string;
let official: string;
let runs = 0;

/** A data folder whose live snapshot is the shared test world (copied: tests here promote new ones). */
function freshDataDir(): string {
  const dir = path.join(tmp, `data-${++runs}`);
  fs.cpSync(inject('testDataDir'), dir, { recursive: true });
  return dir;
}

/** A copy of the official files to damage. */
function freshOfficial(): string {
  const dir = path.join(tmp, `official-${++runs}`);
  fs.cpSync(official, dir, { recursive: true });
  return dir;
}

async function run(
  dataDir: string,
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stdout += String(chunk);
    return true;
  });
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stderr += String(chunk);
    return true;
  });
  try {
    const code = await ingestCommand(args, loadConfig({ REGDATA_DATA_DIR: dataDir }));
    return { code, stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-ingest-cli-'));
  official = path.join(tmp, 'official');
  const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  try {
    await officialFilesCommand([official], loadConfig({ REGDATA_DATA_DIR: inject('testDataDir') }));
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}, 120_000);

afterAll(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

describe('arguments', () => {
  it('takes codes or "all" and refuses countries without an adapter as a usage error', () => {
    const supported = ['EE', 'LV', 'LT'] as const;
    expect(parseIngestCountries(['all'], supported)).toEqual(['EE', 'LV', 'LT']);
    expect(parseIngestCountries(['lv', 'EE,LV'], supported)).toEqual(['LV', 'EE']);
    expect(() => parseIngestCountries([], supported)).toThrow(UsageError);
    expect(() => parseIngestCountries(['XX'], supported)).toThrow(/unknown country: XX/);
    expect(() => parseIngestCountries(['NO'], supported)).toThrow(/no ingest adapter for NO/);
  });

  it('treats a --from that is not a folder as a usage error (exit 2 in main)', async () => {
    await expect(run(freshDataDir(), ['EE', '--from', path.join(tmp, 'nope')])).rejects.toThrow(UsageError);
    await expect(run(freshDataDir(), ['EE', '--snapshot', 'Bad Label'])).rejects.toThrow(UsageError);
  });
});

describe('a good run', () => {
  it('promotes the new snapshot, carries the other countries over and prints the summary table', async () => {
    const dataDir = freshDataDir();
    const store = new SnapshotStore(dataDir);
    const before = store.currentId();
    const { code, stdout } = await run(dataDir, ['all', '--from', official, '--snapshot', 'nightly']);
    expect(code).toBe(0);
    const live = store.currentId()!;
    expect(live).not.toBe(before);
    expect(live).toMatch(/-nightly$/);
    const info = JSON.parse(fs.readFileSync(path.join(store.snapshotDir(live), 'snapshot.json'), 'utf8')) as {
      countries: string[];
    };
    expect(info.countries).toEqual(COUNTRY_CODES);
    const manifest = JSON.parse(
      fs.readFileSync(store.file(live, 'LV', 'manifest'), 'utf8'),
    ) as CountryManifest;
    expect(manifest.source).toBe('official-files');
    expect(stdout).toMatch(
      /country\s+files\s+rows_read\s+companies_written\s+history_written\s+rows_rejected/,
    );
    expect(stdout).toMatch(/^LV\s+9\s+\d+/m);
    expect(stdout).toMatch(/rejected rows and nulled values by reason:/);
    expect(stdout).toMatch(/total time/);
  }, 120_000);
});

describe('malformed rows', () => {
  it('drops just the broken rows of LV register.csv, names file, line and reason, and builds the country', async () => {
    const dataDir = freshDataDir();
    const store = new SnapshotStore(dataDir);
    const before = store.currentId()!;
    const from = freshOfficial();
    const register = path.join(from, 'LV', 'register.csv');
    const lines = fs.readFileSync(register, 'utf8').split('\n');
    // Two one-line records well inside the file (an even count of quotes: no multi-line value).
    const whole = (i: number) => /^\d{11};/.test(lines[i]!) && (lines[i]!.split('"').length - 1) % 2 === 0;
    const picks = lines.map((_, i) => i).filter((i) => i > 10 && whole(i) && whole(i + 1));
    const quoteAt = picks[0]!;
    const extraAt = picks[Math.floor(picks.length / 2)]!;
    const codeOf = (i: number) => lines[i]!.slice(0, 11);
    const broken = [codeOf(quoteAt), codeOf(extraAt)];
    // A bare quote opening the sepa field, and a delimiter too many at the end of a row.
    lines[quoteAt] = lines[quoteAt]!.replace(/^(\d{11});/, '$1;"');
    lines[extraAt] = `${lines[extraAt]!.replace(/\r$/, '')};extra`;
    fs.writeFileSync(register, lines.join('\n'));

    const { code, stdout, stderr } = await run(dataDir, ['LV', '--from', from]);
    expect(code, stderr).toBe(0);
    const live = store.currentId()!;
    expect(live).not.toBe(before);
    expect(stdout).toMatch(
      new RegExp(
        `register\\.csv.*(a quote that is never closed|text after a closing quote).*register\\.csv line ${quoteAt + 1}\\b`,
      ),
    );
    expect(stdout).toMatch(
      new RegExp(
        `register\\.csv.*too many fields.*register\\.csv line ${extraAt + 1}: 22 fields, the header has 21`,
      ),
    );

    // Independent check: the companies are the live (world) snapshot's minus exactly the two broken rows.
    const codes = async (id: string) => {
      const instance = await DuckDBInstance.create(':memory:');
      const conn = await instance.connect();
      try {
        const reader = await conn.runAndReadAll(
          `SELECT registrikood FROM read_parquet('${store.file(id, 'LV', 'companies')}') ORDER BY 1`,
        );
        return reader.getRows().map((r) => String(r[0]));
      } finally {
        conn.closeSync();
        instance.closeSync();
      }
    };
    const was = await codes(before);
    expect(was).toEqual(expect.arrayContaining(broken));
    expect(await codes(live)).toEqual(was.filter((c) => !broken.includes(c)));
  }, 120_000);
});

describe('a data problem: exit 1, nothing promoted, the live snapshot keeps serving', () => {
  it('names file, line and column of a truncated file', async () => {
    const dataDir = freshDataDir();
    const store = new SnapshotStore(dataDir);
    const before = store.currentId();
    const from = freshOfficial();
    const zip = path.join(from, 'EE', 'ettevotja_rekvisiidid__lihtandmed.csv.zip');
    const csv = path.join(from, 'EE', 'ettevotja_rekvisiidid__lihtandmed.csv');
    await extractZip(zip, csv);
    fs.rmSync(zip);
    // Cut inside a quoted name: what an interrupted copy leaves.
    const text = fs.readFileSync(csv, 'utf8');
    const lines = text.split('\n');
    lines[lines.length - 2] = `"Lõpetamata OÜ;1`;
    fs.writeFileSync(csv, lines.slice(0, -1).join('\n'));
    const { code, stderr } = await run(dataDir, ['EE', '--from', from]);
    expect(code).toBe(1);
    expect(stderr).toMatch(
      new RegExp(
        `ettevotja_rekvisiidid__lihtandmed\\.csv line ${lines.length - 1}, column 1 \\(nimi\\): unquoted value`,
      ),
    );
    expect(stderr).toMatch(/nothing promoted, the live snapshot keeps serving/);
    expect(store.currentId()).toBe(before);
    expect(store.list()).toEqual([before]);
  }, 60_000);

  it('refuses a country whose company count falls more than 10% unless --allow-drop', async () => {
    const dataDir = freshDataDir();
    const store = new SnapshotStore(dataDir);
    const before = store.currentId();
    const from = freshOfficial();
    const register = path.join(from, 'LV', 'register.csv');
    const lines = fs.readFileSync(register, 'utf8').split('\n');
    fs.writeFileSync(register, lines.slice(0, Math.floor(lines.length * 0.8)).join('\n') + '\n');
    const refused = await run(dataDir, ['LV', '--from', from]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/LV: \d+ companies against \d+ in the live snapshot, a 2\d\.\d% drop/);
    expect(store.currentId()).toBe(before);
    const allowed = await run(dataDir, ['LV', '--from', from, '--allow-drop']);
    expect(allowed.code).toBe(0);
    expect(store.currentId()).not.toBe(before);
  }, 60_000);

  it('fails on a missing required file', async () => {
    const dataDir = freshDataDir();
    const from = freshOfficial();
    fs.rmSync(path.join(from, 'LT', 'JAR_IREGISTRUOTI.csv'));
    const { code, stderr } = await run(dataDir, ['LT', '--from', from]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/LT: no RC JAR_IREGISTRUOTI\.csv/);
  }, 60_000);
});

describe('the input folder as an operator fills it', () => {
  it('names every problem of every country in one run, before anything is read', async () => {
    const dataDir = freshDataDir();
    const before = new SnapshotStore(dataDir).currentId();
    const from = freshOfficial();
    fs.rmSync(path.join(from, 'LT', 'JAR_IREGISTRUOTI.csv'));
    fs.writeFileSync(path.join(from, 'LV', 'register.csv'), '');
    // The writer saves it as RIK does, zipped; a cut download leaves a zip without its directory.
    fs.writeFileSync(
      path.join(from, 'EE', 'ettevotja_rekvisiidid__lihtandmed.csv.zip'),
      'PK\u0003\u0004 cut',
    );
    const { code, stderr, stdout } = await run(dataDir, ['EE', 'LV', 'LT', '--from', from]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/3 problems with the input/);
    expect(stderr).toMatch(/EE: ettevotja_rekvisiidid__lihtandmed\.csv\.zip .*zip/);
    expect(stderr).toMatch(/LV: register\.csv is empty \(0 bytes\)/);
    expect(stderr).toMatch(/LT: no RC JAR_IREGISTRUOTI\.csv .*the principal file/);
    // Nothing was staged: no country line in the summary.
    expect(stdout).not.toMatch(/staged|written/);
    expect(new SnapshotStore(dataDir).currentId()).toBe(before);
  }, 60_000);

  it('reads the principal file as downloaded, gzipped or zipped, under a name the adapter does not list', async () => {
    const from = freshOfficial();
    const register = path.join(from, 'LV', 'register.csv');
    fs.writeFileSync(`${register}.gz`, zlib.gzipSync(fs.readFileSync(register)));
    fs.rmSync(register);
    const dataDir = freshDataDir();
    const { code, stderr } = await run(dataDir, ['LV', '--from', from]);
    expect(stderr).not.toMatch(/failed/);
    expect(code).toBe(0);
    const store = new SnapshotStore(dataDir);
    const manifest = JSON.parse(
      fs.readFileSync(store.file(store.currentId()!, 'LV', 'manifest'), 'utf8'),
    ) as CountryManifest;
    expect(manifest.row_counts.companies).toBeGreaterThan(0);
  }, 60_000);

  it('names a missing enrichment with what it adds and exits 0; --require makes it an error', async () => {
    const from = freshOfficial();
    fs.rmSync(path.join(from, 'LV', 'pdb_pvnmaksataji_odata.csv'));
    const ok = await run(freshDataDir(), ['LV', '--from', from]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/enrichments not in the input/);
    expect(ok.stdout).toMatch(/LV .*VID/);
    const required = await run(freshDataDir(), ['LV', '--from', from, '--require', 'vat']);
    expect(required.code).toBe(1);
    expect(required.stderr).toMatch(/LV: no .* required by --require/);
    const all = await run(freshDataDir(), ['LV', '--from', from, '--require', 'all']);
    expect(all.code).toBe(1);
    await expect(run(freshDataDir(), ['LV', '--from', from, '--require', 'no-such-file'])).rejects.toThrow(
      UsageError,
    );
  }, 90_000);

  it('refuses a non-empty input with no company for sale unless --allow-drop', async () => {
    const dataDir = freshDataDir();
    const before = new SnapshotStore(dataDir).currentId();
    const from = freshOfficial();
    const register = path.join(from, 'LV', 'register.csv');
    const header = fs.readFileSync(register, 'utf8').split('\n')[0]!;
    fs.writeFileSync(register, `${header}\n`);
    const { code, stderr } = await run(dataDir, ['LV', '--from', from]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/LV: the input yields 0 companies for sale/);
    expect(new SnapshotStore(dataDir).currentId()).toBe(before);
  }, 60_000);
});

describe('killed at any point', () => {
  const child = fileURLToPath(new URL('./helpers/ingest-child.ts', import.meta.url));

  /** Starts an ingest in a child process and SIGKILLs it when its log shows `when`. */
  function killWhen(dataDir: string, from: string, when: RegExp): Promise<string> {
    return new Promise((resolve, reject) => {
      const proc = spawn(process.execPath, ['--import', 'tsx', child, dataDir, 'all', '--from', from], {
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let log = '';
      proc.stderr.on('data', (chunk: Buffer) => {
        log += chunk.toString();
        if (when.test(log)) proc.kill('SIGKILL');
      });
      proc.on('error', reject);
      proc.on('exit', (code, signal) =>
        signal === 'SIGKILL' ? resolve(log) : reject(new Error(`exited ${code}: ${log}`)),
      );
    });
  }

  it.each([
    ['while reading the files', /"stage":"read officers\.csv"/, true],
    ['while writing and auditing a country', /"msg":"LV: staged in/, true],
    // The swap follows within milliseconds: either snapshot may be live, never a half one.
    ['after the last country, around the swap', /"msg":"LT: \d+ companies/, false],
  ])(
    '%s: a whole snapshot keeps serving, no half one is listed, the next run succeeds',
    async (_, when, oldLive) => {
      const dataDir = freshDataDir();
      const store = new SnapshotStore(dataDir);
      const before = store.currentId();
      await killWhen(dataDir, official, when);
      const live = store.currentId()!;
      if (oldLive) expect(live).toBe(before);
      const info = JSON.parse(
        fs.readFileSync(path.join(store.snapshotDir(live), 'snapshot.json'), 'utf8'),
      ) as {
        countries: string[];
      };
      expect(info.countries).toEqual(COUNTRY_CODES);
      for (const c of ['EE', 'LV', 'LT'] as const)
        expect(fs.existsSync(store.file(live, c, 'manifest'))).toBe(true);
      // A folder renamed into place just before the kill is complete (not necessarily live); a half one is
      // only ever a hidden .partial-* folder, which list() never shows.
      for (const id of store.list()) {
        expect(fs.existsSync(path.join(store.snapshotDir(id), 'snapshot.json'))).toBe(true);
      }
      const again = await run(dataDir, ['all', '--from', official]);
      expect(again.code).toBe(0);
      expect(store.currentId()).not.toBe(live);
      expect(fs.readdirSync(dataDir).filter((n) => n.startsWith('.ingest-work-'))).toEqual([]);
    },
    120_000,
  );
});
