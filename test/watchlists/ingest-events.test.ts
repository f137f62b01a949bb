import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import yauzl from 'yauzl';
import yazl from 'yazl';
import { loadConfig } from '../../src/config.ts';
import { startServer, type StartedServer } from '../../src/server.ts';
import { rawRequest } from '../http/helpers/real-server.ts';

/*
 * Issue 31, end to end through the real ingest: `regdata official-files` writes the test world as the
 * registers' official files (EE: a ;-separated CSV and a JSON array, zipped; NO: a gzipped JSON array),
 * `regdata ingest` (the built CLI, a child process) publishes them, watchlists and a webhook endpoint are
 * stored in the configured SQLite wallet over REST, and a second set of files, where a few real rows were
 * changed as the registers write such changes (a new name, a new status, a moved address), is ingested
 * the same way. The events the live server then serves (GET /api/v1/data/events over HTTP) and pushes to a
 * loopback receiver (signatures checked with the standardwebhooks library) must equal the events computed
 * here from the two file sets alone: which companies differ, in which columns, mapped to API fields by the
 * register formats (docs/ingest.md, /work/shared/reference/registry-formats.md).
 */

const BIN = fileURLToPath(new URL('../../bin/regdata.mjs', import.meta.url));
const run = promisify(execFile);
const PRICE = 0.01;

interface FieldChange {
  field: string;
  before: string | null;
  after: string | null;
}
interface Event {
  id: string;
  country: string;
  registrikood: string;
  change: string | null;
  fields: string[];
  diff: FieldChange[];
  watchlists: { id: string; membership: string }[];
  snapshot_id: string;
  as_of: string;
}

let tmp: string;
let dataDir: string;
let server: StartedServer | undefined;
let receiver: http.Server;
let receiverUrl: string;
let secret = '';
/** The webhook bodies whose signature verified, and how many arrived at all. */
const received: { verified: { type: string; data: Event }[]; attempts: number; ids: string[] } = {
  verified: [],
  attempts: 0,
  ids: [],
};

/** The CLI and the server are configured alike: one data folder, one SQLite wallet in it. */
const settings = () => ({
  REGDATA_DATA_DIR: dataDir,
  REGDATA_WALLET_URL: `sqlite:${path.join(dataDir, 'wallet.db')}`,
  LOG_LEVEL: 'silent',
});
const env = () => ({ ...process.env, ...settings() });
async function cli(args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, [BIN, ...args], { env: env(), maxBuffer: 64 << 20 });
  return stdout;
}

function serve(): Promise<StartedServer> {
  return startServer(
    loadConfig({
      ...settings(),
      PORT: '0',
      REGDATA_WALLET_SWEEP_INTERVAL_MS: '0',
      REGDATA_PRICES: `EE=${PRICE},NO=${PRICE}`,
      REGDATA_WEBHOOKS_ALLOW_PRIVATE: 'true',
      REGDATA_WEBHOOKS_POLL_MS: '100',
    }),
    { handleSignals: false, engine: { connections: 2 } },
  );
}

async function call(method: string, url: string, key: string, body?: unknown) {
  const res = await rawRequest(`${server!.url}${url}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return { status: res.status, body: res.body ? (JSON.parse(res.body) as any) : null };
}

/* ---- The official files, read and edited as text: nothing of the ingest is used here. ---- */

const EE_REGISTER = 'ettevotja_rekvisiidid__lihtandmed';
const EE_GENERAL = 'ettevotja_rekvisiidid__yldandmed';
const NO_UNITS = 'enheter_alle.json.gz';

/** The one file of a zip, with yauzl (the ingest's own unpacking is not used). */
async function readZip(file: string): Promise<{ name: string; text: string }> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.open(file, { lazyEntries: true }, (err, z) => (err ? reject(err) : resolve(z))),
  );
  try {
    const entry = await new Promise<yauzl.Entry>((resolve, reject) => {
      zip.once('entry', resolve).once('error', reject);
      zip.readEntry();
    });
    const stream = await new Promise<NodeJS.ReadableStream>((resolve, reject) =>
      zip.openReadStream(entry, (err, s) => (err ? reject(err) : resolve(s))),
    );
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    return { name: entry.fileName, text: Buffer.concat(chunks).toString('utf8') };
  } finally {
    zip.close();
  }
}

async function writeZip(file: string, name: string, text: string): Promise<void> {
  const zip = new yazl.ZipFile();
  zip.addBuffer(Buffer.from(text, 'utf8'), name);
  zip.end();
  await new Promise<void>((resolve, reject) =>
    zip.outputStream.pipe(fs.createWriteStream(file)).on('close', resolve).on('error', reject),
  );
}

/** EE lihtandmed: `;`-separated, a header line, no quoting in the synthetic world's rows we pick. */
function eeRows(text: string): Map<string, Record<string, string>> {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const header = lines[0]!.split(';');
  const rows = new Map<string, Record<string, string>>();
  for (const line of lines.slice(1)) {
    if (!line || line.includes('"')) continue;
    const cells = line.split(';');
    if (cells.length !== header.length) continue;
    const row = Object.fromEntries(header.map((h, i) => [h, cells[i]!]));
    rows.set(row['ariregistri_kood']!, row);
  }
  return rows;
}

/** A JSON array with one object a line (EE yldandmed, NO enheter): its objects by code. */
function jsonLines(text: string, key: string): Map<string, Record<string, unknown>> {
  const rows = new Map<string, Record<string, unknown>>();
  for (const line of text.split('\n')) {
    const t = line.trim().replace(/,$/, '');
    if (!t.startsWith('{')) continue;
    const o = JSON.parse(t) as Record<string, unknown>;
    rows.set(String(o[key]), o);
  }
  return rows;
}

/** Replaces the object of `code` in a one-object-a-line JSON array, keeping every other byte. */
function editJsonLine(
  text: string,
  key: string,
  code: string,
  edit: (o: Record<string, unknown>) => void,
): string {
  let hits = 0;
  const out = text
    .split('\n')
    .map((line) => {
      const m = /^(\s*)(\{.*\})(,?)(\r?)$/.exec(line);
      if (!m) return line;
      const o = JSON.parse(m[2]!) as Record<string, unknown>;
      if (String(o[key]) !== code) return line;
      hits++;
      edit(o);
      return `${m[1]}${JSON.stringify(o)}${m[3]}${m[4]}`;
    })
    .join('\n');
  expect(hits).toBe(1);
  return out;
}

/* ---- The expected events, from the two file sets. ---- */

type Diff = Map<string, FieldChange[]>;
/** A value as the API writes it in a diff: the value itself, null when there is none. */
const j = (v: string | null | undefined): string | null => v ?? null;

/**
 * EE: lihtandmed is the register's row of each company; its columns as the API names them (spec 2.2/2.3,
 * registry-formats.md 1.2a). Text fields are the register's text; staatus is the register's code (R, L, N,
 * K are the normalised set), source_status the code as given. aadress_text is the full address with the
 * postcode: it changes where the normalised full address does, by the same text.
 */
function eeDiff(
  before: Map<string, Record<string, string>>,
  after: Map<string, Record<string, string>>,
): Diff {
  const out: Diff = new Map();
  for (const [code, a] of after) {
    const b = before.get(code);
    if (!b) continue;
    const changes: FieldChange[] = [];
    for (const col of Object.keys(a)) {
      if (a[col] === b[col]) continue;
      const pair = (field: string) => changes.push({ field, before: j(b[col]), after: j(a[col]) });
      switch (col) {
        case 'nimi':
          pair('arinimi');
          break;
        case 'ettevotja_staatus':
          pair('staatus');
          pair('source_status');
          break;
        case 'ettevotja_staatus_tekstina':
          pair('staatus_tekstina');
          break;
        case 'asukoht_ettevotja_aadressis':
          pair('asukoht');
          break;
        case 'ads_normaliseeritud_taisaadress':
          // The API's text has the postcode too: its before is read from the API below, the after is the
          // same text with the register's edit made in it.
          changes.push({ field: 'aadress_text', before: b[col]!, after: a[col]! });
          break;
        default:
          throw new Error(`EE column ${col} changed and this test does not know its API field`);
      }
    }
    if (changes.length) out.set(code, changes);
  }
  return out;
}

/** NO enheter: navn is arinimi; konkurs is the state N ("Konkurs"), named konkurs in source_status. */
function noDiff(
  before: Map<string, Record<string, unknown>>,
  after: Map<string, Record<string, unknown>>,
): Diff {
  const out: Diff = new Map();
  for (const [code, a] of after) {
    const b = before.get(code)!;
    if (JSON.stringify(a) === JSON.stringify(b)) continue;
    const changes: FieldChange[] = [];
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
      if (JSON.stringify(a[key]) === JSON.stringify(b[key])) continue;
      switch (key) {
        case 'navn':
          changes.push({ field: 'arinimi', before: j(b[key] as string), after: j(a[key] as string) });
          break;
        case 'konkurs': {
          const state = (o: Record<string, unknown>) => (o['konkurs'] === true ? 'N' : 'R');
          changes.push({ field: 'staatus', before: j(state(b)), after: j(state(a)) });
          const text = (o: Record<string, unknown>) => (o['konkurs'] === true ? 'Konkurs' : 'Registrert');
          changes.push({ field: 'staatus_tekstina', before: j(text(b)), after: j(text(a)) });
          const source = (o: Record<string, unknown>) => (o['konkurs'] === true ? 'konkurs' : null);
          changes.push({ field: 'source_status', before: j(source(b)), after: j(source(a)) });
          break;
        }
        case 'konkursdato':
          // The date of the bankruptcy is no API field.
          break;
        case 'forretningsadresse': {
          // The street lines are the start of asukoht and aadress_text (before read from the API below).
          const lines = (o: Record<string, unknown>) =>
            ((o['forretningsadresse'] as { adresse: string[] }).adresse ?? []).join(', ');
          changes.push({ field: 'asukoht', before: lines(b), after: lines(a) });
          changes.push({ field: 'aadress_text', before: lines(b), after: lines(a) });
          break;
        }
        default:
          throw new Error(`NO key ${key} changed and this test does not know its API field`);
      }
    }
    out.set(code, changes);
  }
  return out;
}

/* ---- The test ---- */

let key: string;
let quietKey: string;
const lists: Record<string, string> = {};
let picks: { EE: string[]; NO: string[] };
let eeBefore: Map<string, Record<string, string>>;
let eeAfter: Map<string, Record<string, string>>;
let noBefore: Map<string, Record<string, unknown>>;
let noAfter: Map<string, Record<string, unknown>>;
/** aadress_text (and NO asukoht) as the API served them before the second ingest. */
const servedBefore = new Map<string, Record<string, unknown>>();
let firstSnapshot: string;
let secondSnapshot: string;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-test-ingest-events-'));
  dataDir = path.join(tmp, 'data');
  fs.cpSync(inject('testDataDir'), dataDir, { recursive: true });

  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.attempts++;
      const body = Buffer.concat(chunks).toString('utf8');
      try {
        const payload = new Webhook(secret).verify(body, req.headers as Record<string, string>);
        received.verified.push(payload as { type: string; data: Event });
        received.ids.push(String(req.headers['webhook-id']));
      } catch {
        // An unverified body is counted as an attempt only; the test then finds it missing.
      }
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;

  // The first file set, as the registers publish it; NO's JSON only (with both, the ingest reads the JSON).
  const filesA = path.join(tmp, 'files-a');
  await cli(['official-files', filesA, '--countries', 'EE,NO']);
  fs.rmSync(path.join(filesA, 'NO', 'enheter_alle.csv.gz'));
  await cli(['ingest', 'EE', 'NO', '--from', filesA, '--snapshot', 'files-a']);

  // Companies to edit: EE OÜs registered (R), NO AS units with no state flag and a business address.
  const eeZip = await readZip(path.join(filesA, 'EE', `${EE_REGISTER}.csv.zip`));
  eeBefore = eeRows(eeZip.text);
  const eePicks = [...eeBefore.values()]
    .filter(
      (r) =>
        r['ettevotja_staatus'] === 'R' &&
        r['ettevotja_oiguslik_vorm'] === 'Osaühing' &&
        r['asukoht_ettevotja_aadressis'] &&
        r['ads_normaliseeritud_taisaadress']!.endsWith(r['asukoht_ettevotja_aadressis']!),
    )
    .slice(0, 4)
    .map((r) => r['ariregistri_kood']!);
  const noText = zlib.gunzipSync(fs.readFileSync(path.join(filesA, 'NO', NO_UNITS))).toString('utf8');
  noBefore = jsonLines(noText, 'organisasjonsnummer');
  const noPicks = [...noBefore.values()]
    .filter((o) => {
      const form = o['organisasjonsform'] as { kode: string } | null;
      const addr = o['forretningsadresse'] as { adresse?: string[] } | null;
      return (
        form?.kode === 'AS' &&
        o['konkurs'] === false &&
        o['underAvvikling'] === false &&
        o['underTvangsavviklingEllerTvangsopplosning'] === false &&
        o['underRekonstruksjonsforhandlingDato'] === null &&
        addr?.adresse?.length === 1 &&
        addr.adresse[0]
      );
    })
    .slice(0, 4)
    .map((o) => String(o['organisasjonsnummer']));
  expect(eePicks).toHaveLength(4);
  expect(noPicks).toHaveLength(4);
  picks = { EE: eePicks, NO: noPicks };

  // The account and its watchlists, over REST, stored in the wallet the ingest reads.
  server = await serve();
  firstSnapshot = server.engine.snapshot!.id;
  expect(firstSnapshot).toMatch(/-files-a$/);
  key = (
    await server.wallet.createKey({
      email: 'watcher@test.local',
      kind: 'standard',
      plan: 'payg',
      credits: 50,
    })
  ).key;
  quietKey = (
    await server.wallet.createKey({ email: 'quiet@test.local', kind: 'standard', plan: 'payg', credits: 5 })
  ).key;
  const create = async (name: string, body: Record<string, unknown>) => {
    const res = await call('POST', '/api/v1/account/watchlists', key, { name, ...body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    lists[name] = res.body.data.id as string;
  };
  const [eeName, eeStatus, eeMoved, eeQuiet] = eePicks as [string, string, string, string];
  const [noName, noBankrupt, noMoved, noQuiet] = noPicks as [string, string, string, string];
  await create('ee-suppliers', { country: 'EE', companies: [eeName, eeStatus, eeMoved, eeQuiet] });
  await create('ee-in-liquidation', { country: 'EE', search: { status: ['L'] } });
  await create('ee-one', { country: 'EE', companies: [eeName] });
  // The bankrupt unit is watched only through the saved search.
  await create('no-clients', { country: 'NO', companies: [noName, noMoved, noQuiet] });
  await create('no-bankrupt', { country: 'NO', search: { status: ['N'] } });
  const hook = await call('POST', '/api/v1/account/webhooks', key, { url: receiverUrl });
  expect(hook.status, JSON.stringify(hook.body)).toBe(201);
  secret = hook.body.data.secret as string;
  for (const [country, code] of [
    ['EE', eeMoved],
    ['NO', noMoved],
    ['NO', noBankrupt],
  ] as const) {
    const res = await call('GET', `/api/v1/data/companies/${code}?country=${country}`, key);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    servedBefore.set(code, res.body.data as Record<string, unknown>);
  }
  await server.close();
  server = undefined;

  // The second file set: the same files, with a rename, a new status and a move, as the register writes them.
  const filesB = path.join(tmp, 'files-b');
  fs.cpSync(filesA, filesB, { recursive: true });
  const rename = (name: string) => `${name.replace(/ OÜ$/, '')} Uusnimi OÜ`;
  let ee = eeZip.text;
  const eeLine = (code: string, edit: (r: Record<string, string>) => void) => {
    const header = ee
      .replace(/^\uFEFF/, '')
      .split(/\r?\n/)[0]!
      .split(';');
    ee = ee
      .split('\n')
      .map((line) => {
        if (!line.startsWith(`${eeBefore.get(code)!['nimi']};${code};`)) return line;
        const cr = line.endsWith('\r') ? '\r' : '';
        const row = Object.fromEntries(header.map((h, i) => [h, line.replace(/\r$/, '').split(';')[i]!]));
        edit(row);
        return header.map((h) => row[h]).join(';') + cr;
      })
      .join('\n');
  };
  const atEnd = (text: string, old: string, now: string) => {
    expect(text.endsWith(old)).toBe(true);
    return text.slice(0, text.length - old.length) + now;
  };
  const moved = (street: string) => street.replace(/\d+/, (n) => String(Number(n) + 1));
  eeLine(eeName, (r) => (r['nimi'] = rename(r['nimi']!)));
  eeLine(eeStatus, (r) => {
    r['ettevotja_staatus'] = 'L';
    r['ettevotja_staatus_tekstina'] = 'Likvideerimisel';
  });
  eeLine(eeMoved, (r) => {
    const street = r['asukoht_ettevotja_aadressis']!;
    r['asukoht_ettevotja_aadressis'] = moved(street);
    r['ads_normaliseeritud_taisaadress'] = atEnd(
      r['ads_normaliseeritud_taisaadress']!,
      street,
      moved(street),
    );
  });
  await writeZip(path.join(filesB, 'EE', `${EE_REGISTER}.csv.zip`), eeZip.name, ee);
  eeAfter = eeRows(ee);
  // yldandmed says the same of the same companies.
  const general = await readZip(path.join(filesA, 'EE', `${EE_GENERAL}.json.zip`));
  let g = editJsonLine(general.text, 'ariregistri_kood', eeName, (o) => {
    o['nimi'] = rename(String(o['nimi']));
  });
  g = editJsonLine(g, 'ariregistri_kood', eeStatus, (o) => {
    const y = o['yldandmed'] as Record<string, unknown>;
    y['staatus'] = 'L';
    y['staatus_tekstina'] = 'Likvideerimisel';
  });
  g = editJsonLine(g, 'ariregistri_kood', eeMoved, (o) => {
    for (const a of (o['yldandmed'] as { aadressid: Record<string, string | null>[] }).aadressid) {
      const street = a['tanav_maja_korter']!;
      a['tanav_maja_korter'] = moved(street);
      a['aadress_ads__ads_normaliseeritud_taisaadress'] = atEnd(
        a['aadress_ads__ads_normaliseeritud_taisaadress']!,
        street,
        moved(street),
      );
    }
  });
  await writeZip(path.join(filesB, 'EE', `${EE_GENERAL}.json.zip`), general.name, g);

  let no = editJsonLine(noText, 'organisasjonsnummer', noName, (o) => {
    o['navn'] = `${String(o['navn']).replace(/ AS$/, '')} Nyttnavn AS`;
  });
  no = editJsonLine(no, 'organisasjonsnummer', noBankrupt, (o) => {
    o['konkurs'] = true;
    o['konkursdato'] = '2026-11-02';
  });
  no = editJsonLine(no, 'organisasjonsnummer', noMoved, (o) => {
    const a = o['forretningsadresse'] as { adresse: string[] };
    a.adresse = a.adresse.map(moved);
  });
  fs.writeFileSync(path.join(filesB, 'NO', NO_UNITS), zlib.gzipSync(no));
  noAfter = jsonLines(no, 'organisasjonsnummer');

  await cli(['ingest', 'EE', 'NO', '--from', filesB, '--snapshot', 'files-b']);
  server = await serve();
  secondSnapshot = server.engine.snapshot!.id;
  expect(secondSnapshot).toMatch(/-files-b$/);
}, 600_000);

afterAll(async () => {
  await server?.close();
  await new Promise((resolve) => receiver?.close(resolve));
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

/** The expected events of the second publish, from the two file sets and the watchlists above. */
function expectedEvents(): Omit<Event, 'id' | 'as_of'>[] {
  const [eeName, eeStatus, eeMoved, eeQuiet] = picks.EE as [string, string, string, string];
  const [noName, noBankrupt, noMoved, noQuiet] = picks.NO as [string, string, string, string];
  const withServed = (code: string, changes: FieldChange[]) =>
    changes.map((c) => {
      if (c.field !== 'aadress_text' && !(c.field === 'asukoht' && picks.NO.includes(code))) return c;
      // A text the API composes: the served before, with the register's edit made in it.
      const before = String(servedBefore.get(code)![c.field]);
      expect(before).toContain(c.before);
      return { field: c.field, before: j(before), after: j(before.replace(c.before!, c.after!)) };
    });
  const ee = eeDiff(eeBefore, eeAfter);
  const no = noDiff(noBefore, noAfter);
  // Exactly the edited rows differ, and the watched quiet ones do not.
  expect([...ee.keys()].sort()).toEqual([eeName, eeStatus, eeMoved].sort());
  expect([...no.keys()].sort()).toEqual([noName, noBankrupt, noMoved].sort());
  expect(ee.has(eeQuiet) || no.has(noQuiet)).toBe(false);

  // Saved searches: members by the files' status before and after.
  const eeLiquidation = (rows: Map<string, Record<string, string>>) =>
    new Set(
      [...rows.values()].filter((r) => r['ettevotja_staatus'] === 'L').map((r) => r['ariregistri_kood']!),
    );
  const noBankrupts = (rows: Map<string, Record<string, unknown>>) =>
    new Set(
      [...rows.values()].filter((o) => o['konkurs'] === true).map((o) => String(o['organisasjonsnummer'])),
    );
  const membership = (before: Set<string>, after: Set<string>, code: string) =>
    before.has(code) && after.has(code)
      ? 'member'
      : after.has(code)
        ? 'entered'
        : before.has(code)
          ? 'left'
          : null;

  const events: Omit<Event, 'id' | 'as_of'>[] = [];
  const add = (
    country: 'EE' | 'NO',
    diff: Diff,
    codeLists: Record<string, string[]>,
    search: { name: string; before: Set<string>; after: Set<string> },
  ) => {
    const flipped = [...search.before, ...search.after].filter(
      (c) => search.before.has(c) !== search.after.has(c),
    );
    for (const code of new Set([...diff.keys(), ...flipped])) {
      const wl: { id: string; membership: string }[] = [];
      // A list's company makes an event when the publish changed it.
      for (const [name, codes] of Object.entries(codeLists)) {
        if (codes.includes(code) && diff.has(code)) wl.push({ id: lists[name]!, membership: 'member' });
      }
      const m = membership(search.before, search.after, code);
      if (m) wl.push({ id: lists[search.name]!, membership: m });
      if (wl.length === 0) continue;
      const changes = withServed(code, diff.get(code) ?? []);
      events.push({
        country,
        registrikood: code,
        change: diff.has(code) ? 'changed' : null,
        fields: changes.map((c) => c.field).sort(),
        diff: [...changes].sort((a, b) => a.field.localeCompare(b.field)),
        watchlists: wl.sort((a, b) => (a.id < b.id ? -1 : 1)),
        snapshot_id: secondSnapshot,
      });
    }
  };
  add(
    'EE',
    ee,
    { 'ee-suppliers': picks.EE, 'ee-one': [eeName] },
    { name: 'ee-in-liquidation', before: eeLiquidation(eeBefore), after: eeLiquidation(eeAfter) },
  );
  add(
    'NO',
    no,
    { 'no-clients': [noName, noMoved, noQuiet] },
    { name: 'no-bankrupt', before: noBankrupts(noBefore), after: noBankrupts(noAfter) },
  );
  return sortEvents(events);
}

const sortEvents = <T extends { country: string; registrikood: string }>(events: T[]): T[] =>
  [...events].sort((a, b) => `${a.country}${a.registrikood}`.localeCompare(`${b.country}${b.registrikood}`));
const comparable = (e: Event): Omit<Event, 'id' | 'as_of'> => ({
  country: e.country,
  registrikood: e.registrikood,
  change: e.change,
  fields: [...e.fields].sort(),
  diff: [...e.diff].sort((a, b) => a.field.localeCompare(b.field)),
  watchlists: e.watchlists,
  snapshot_id: e.snapshot_id,
});

async function pull(country: string, k = key): Promise<Event[]> {
  const res = await call('GET', `/api/v1/data/events?country=${country}&page_size=500`, k);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.items as Event[];
}

describe('events through the real ingest of official files', () => {
  it('serves over /events exactly the events the two file sets give', async () => {
    const expected = expectedEvents();
    // Sanity of the expectation itself: every kind of edit is in it, in both countries.
    expect(expected.map((e) => [e.country, e.fields.join(',')])).toEqual(
      expect.arrayContaining([
        ['EE', 'arinimi'],
        ['EE', 'source_status,staatus,staatus_tekstina'],
        ['EE', 'aadress_text,asukoht'],
        ['NO', 'arinimi'],
        ['NO', 'source_status,staatus,staatus_tekstina'],
        ['NO', 'aadress_text,asukoht'],
      ]),
    );
    const pulled = [...(await pull('EE')), ...(await pull('NO'))];
    // The first publish of the files came before the watchlists: every event is the second one's.
    expect(sortEvents(pulled).map(comparable)).toEqual(expected);
    for (const e of pulled) {
      expect(e.id.startsWith(`${secondSnapshot}.${e.country}.`)).toBe(true);
      expect(e.as_of).toBe(
        secondSnapshot.slice(0, 4) + '-' + secondSnapshot.slice(4, 6) + '-' + secondSnapshot.slice(6, 8),
      );
    }
    // Another account's pull sees none of them.
    expect([...(await pull('EE', quietKey)), ...(await pull('NO', quietKey))]).toEqual([]);
  });

  it('pushes the same events to the webhook, each signed (verified by standardwebhooks) and once', async () => {
    const expected = expectedEvents();
    // The server's deliverer polls every 100 ms; wait for as many verified bodies as events.
    for (let i = 0; i < 600 && received.verified.length < expected.length; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(received.attempts).toBe(expected.length);
    expect(received.verified.map((v) => v.type)).toEqual(expected.map(() => 'watchlist.event'));
    const pushed = received.verified.map((v) => v.data);
    expect(sortEvents(pushed).map(comparable)).toEqual(expected);
    // webhook-id is the event id, and the pull shows the same ids.
    expect([...received.ids].sort()).toEqual(pushed.map((e) => e.id).sort());
    const pulled = [...(await pull('EE')), ...(await pull('NO'))];
    expect(pushed.map((e) => e.id).sort()).toEqual(pulled.map((e) => e.id).sort());
    // Pulled twice and pushed once, each event was charged once: the three detail rows read before the
    // second ingest and one row price per event, to the micro-credit; the other account paid nothing.
    const micro = (credits: number) => Math.round(credits * 1e6);
    const balance = async (email: string) => (await server!.wallet.balance({ email })).balance;
    expect(micro(50 - (await balance('watcher@test.local')))).toBe(micro((3 + expected.length) * PRICE));
    expect(micro(await balance('quiet@test.local'))).toBe(micro(5));
  });
});
