/**
 * A search page whose items arrive as JSON text (a planner thread wrote them, engine/lookup-store.ts
 * rowsJson) rather than as objects. The REST answer splices that text into its body, so the event loop
 * neither parses the rows nor serialises them again: 0.3 ms of a 50-row page at c=1 on the demo, about a
 * fifth of the event loop's work for a search (docs/data-contract.md "Performance"). Everyone else (MCP,
 * the dashboard's search, an idempotent replay's stored answer) reads `items` as before: the first read
 * parses the text once, and from then on the text is no longer used, so an array changed after that is
 * always what gets written.
 */

const RAW = Symbol('raw items');

interface RawItems {
  json: string;
  count: number;
  /** `items` was read (and may have been changed since): the text no longer speaks for it. */
  read: boolean;
}

type WithItems = { items: unknown[] };

/**
 * `rest` with `items` first (the order JSON.stringify writes), read lazily from `json`, an array of
 * `count` rows.
 */
export function withRawItems<T extends WithItems>(json: string, count: number, rest: Omit<T, 'items'>): T {
  const raw: RawItems = { json, count, read: false };
  let items: unknown[] | undefined;
  const out = {} as T;
  Object.defineProperty(out, 'items', {
    enumerable: true,
    configurable: true,
    get() {
      raw.read = true;
      return (items ??= JSON.parse(raw.json) as unknown[]);
    },
    set(v: unknown[]) {
      raw.read = true;
      items = v;
    },
  });
  Object.assign(out, rest);
  // Not enumerable: a spread copy is a plain object, written the ordinary way.
  Object.defineProperty(out, RAW, { value: raw, enumerable: false });
  return out;
}

/** How many items a page holds, without parsing raw ones (an array read, and maybe changed, is counted). */
export function itemCount(data: WithItems): number {
  const raw = (data as { [RAW]?: RawItems })[RAW];
  return raw && !raw.read ? raw.count : data.items.length;
}

/** The raw items text of `value` when it is a page whose items were never read, else undefined. */
function unreadRaw(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const raw = (value as { [RAW]?: RawItems })[RAW];
  return raw && !raw.read ? raw.json : undefined;
}

/** Cannot occur in a page before its items, which come first. */
const SLOT = '\u0000raw items\u0000';
const SLOT_JSON = JSON.stringify(SLOT);

/**
 * JSON.stringify of a REST envelope `{data, ...}`, the same bytes, with a raw page's items spliced in
 * as they are.
 */
export function stringifyEnvelope(envelope: unknown): string {
  const page = (envelope as { data?: unknown } | null)?.data;
  const json = unreadRaw(page);
  if (json === undefined) return JSON.stringify(envelope);
  const shell: Record<string, unknown> = {};
  for (const k of Object.keys(page as object)) {
    shell[k] = k === 'items' ? SLOT : (page as Record<string, unknown>)[k];
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(envelope as object)) out[k] = k === 'data' ? shell : v;
  return JSON.stringify(out).replace(SLOT_JSON, () => json);
}
