/**
 * A search page whose items arrive as the UTF-8 bytes of their JSON text (a planner thread wrote and
 * encoded them, engine/lookup-store.ts rowsJson) rather than as objects. The REST answer splices those
 * bytes into its body, so the event loop neither parses the rows nor serialises them again (0.3 ms of a
 * 50-row page at c=1 on the demo, about a fifth of the event loop's work for a search), nor holds them as
 * a string: a page of rows with one letter beyond Latin-1 is a two-byte string, 100 KB for 50 KB of JSON,
 * which the event loop's young generation copied and then encoded again for the socket (issue 27, sixth
 * round: 260 KB allocated per search). Everyone else (MCP, the dashboard's search, an idempotent replay's
 * stored answer) reads `items` as before: the first read parses the bytes once, and from then on they are
 * no longer used, so an array changed after that is always what gets written.
 */

const RAW = Symbol('raw items');

interface RawItems {
  bytes: Uint8Array;
  count: number;
  /** `items` was read (and may have been changed since): the bytes no longer speak for it. */
  read: boolean;
}

type WithItems = { items: unknown[] };

const UTF8 = new TextDecoder();

/**
 * `rest` with `items` first (the order JSON.stringify writes), read lazily from `bytes`, the UTF-8 JSON
 * text of an array of `count` rows.
 */
export function withRawItems<T extends WithItems>(
  bytes: Uint8Array,
  count: number,
  rest: Omit<T, 'items'>,
): T {
  const raw: RawItems = { bytes, count, read: false };
  let items: unknown[] | undefined;
  const out = {} as T;
  Object.defineProperty(out, 'items', {
    enumerable: true,
    configurable: true,
    get() {
      raw.read = true;
      return (items ??= JSON.parse(UTF8.decode(raw.bytes)) as unknown[]);
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

/** The raw items of `value` when it is a page whose items were never read, else undefined. */
function unreadRaw(value: unknown): Uint8Array | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const raw = (value as { [RAW]?: RawItems })[RAW];
  return raw && !raw.read ? raw.bytes : undefined;
}

/** Cannot occur in a page before its items, which come first. */
const SLOT = '\u0000raw items\u0000';
const SLOT_JSON = JSON.stringify(SLOT);

/**
 * JSON.stringify of a REST envelope `{data, ...}`, the same bytes, with a raw page's items spliced in
 * as they are: then the UTF-8 body as a Buffer, else the JSON text.
 */
export function stringifyEnvelope(envelope: unknown): string | Buffer {
  const page = (envelope as { data?: unknown } | null)?.data;
  const bytes = unreadRaw(page);
  if (bytes === undefined) return JSON.stringify(envelope);
  const shell: Record<string, unknown> = {};
  for (const k of Object.keys(page as object)) {
    shell[k] = k === 'items' ? SLOT : (page as Record<string, unknown>)[k];
  }
  const text = JSON.stringify({ ...(envelope as object), data: shell });
  const at = text.indexOf(SLOT_JSON);
  return Buffer.concat([
    Buffer.from(text.slice(0, at), 'utf8'),
    bytes,
    Buffer.from(text.slice(at + SLOT_JSON.length), 'utf8'),
  ]);
}
