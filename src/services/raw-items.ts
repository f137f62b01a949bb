/**
 * A search page whose items arrive as JSON text (a planner thread wrote them, engine/lookup-store.ts
 * rowsJson) rather than as objects. The REST answer splices that text into its body, so the event loop
 * neither parses the rows nor serialises them again: 0.3 ms of a 50-row page at c=1 on the demo, about a
 * fifth of the event loop's work for a search (docs/data-contract.md "Performance"). Everyone else (MCP,
 * the dashboard's search, an idempotent replay's stored answer) reads `items` as before: the first read
 * parses the text once, and from then on the text is no longer used, so an array changed after that is
 * always what gets written.
 */

import type { PageBytes } from '../engine/page-arena.ts';

const RAW = Symbol('raw items');

interface RawItems {
  /** The text, or its bytes in a planner thread's page arena (engine/page-arena.ts). */
  json: string | PageBytes;
  count: number;
  /** `items` was read (and may have been changed since): the text no longer speaks for it. */
  read: boolean;
}

type WithItems = { items: unknown[] };

/**
 * `rest` with `items` first (the order JSON.stringify writes), read lazily from `json`, an array of
 * `count` rows.
 */
export function withRawItems<T extends WithItems>(
  json: string | PageBytes,
  count: number,
  rest: Omit<T, 'items'>,
): T {
  const raw: RawItems = { json, count, read: false };
  let items: unknown[] | undefined;
  const out = {} as T;
  Object.defineProperty(out, 'items', {
    enumerable: true,
    configurable: true,
    get() {
      if (items === undefined) items = JSON.parse(textOf(raw)) as unknown[];
      return items;
    },
    set(v: unknown[]) {
      if (items === undefined) textOf(raw);
      items = v;
    },
  });
  Object.assign(out, rest);
  // Not enumerable: a spread copy is a plain object, written the ordinary way.
  Object.defineProperty(out, RAW, { value: raw, enumerable: false });
  return out;
}

/** The raw text, marked read; bytes in an arena are copied out and their slot given back. */
function textOf(raw: RawItems): string {
  raw.read = true;
  if (typeof raw.json !== 'string') raw.json = raw.json.take();
  return raw.json;
}

/**
 * Gives back the arena slot of a page whose items will never be read or written (the in-process
 * engine's timing; anything else that drops an answer unread leaves the slot to the collector).
 */
export function dropRawItems(data: unknown): void {
  const raw = unreadRaw(data);
  if (raw !== undefined && typeof raw !== 'string') raw.release();
}

/** How many items a page holds, without parsing raw ones (an array read, and maybe changed, is counted). */
export function itemCount(data: WithItems): number {
  const raw = (data as { [RAW]?: RawItems })[RAW];
  return raw && !raw.read ? raw.count : data.items.length;
}

/** The raw items of `value` when it is a page whose items were never read, else undefined. */
function unreadRaw(value: unknown): string | PageBytes | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const raw = (value as { [RAW]?: RawItems })[RAW];
  return raw && !raw.read ? raw.json : undefined;
}

/** Cannot occur in a page before its items, which come first. */
const SLOT = '\u0000raw items\u0000';
const SLOT_JSON = JSON.stringify(SLOT);

/**
 * JSON.stringify of a REST envelope `{data, ...}`, the same bytes, with a raw page's items spliced in
 * as they are: a string, or, for items in a page arena, one Buffer, the envelope written around the items
 * in their slot (engine/page-arena.ts; the caller gives the slot back once the Buffer was sent, through
 * pageOfBody).
 */
export function stringifyEnvelope(envelope: unknown): string | Buffer {
  const page = (envelope as { data?: unknown } | null)?.data;
  const json = unreadRaw(page);
  if (json === undefined) return JSON.stringify(envelope);
  const shell: Record<string, unknown> = {};
  for (const k of Object.keys(page as object)) {
    shell[k] = k === 'items' ? SLOT : (page as Record<string, unknown>)[k];
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(envelope as object)) out[k] = k === 'data' ? shell : v;
  const text = JSON.stringify(out);
  const at = text.indexOf(SLOT_JSON);
  const head = text.slice(0, at);
  const tail = text.slice(at + SLOT_JSON.length);
  if (typeof json === 'string') return head + json + tail;
  // An envelope too large for the slot's margins goes as text, and the slot back at once.
  return json.framed(head, tail) ?? head + json.take() + tail;
}
