/**
 * Quoting input in a message (an error, a log line, a reject example). Input can be anything: a 16 KB
 * "e-mail address", a 2 MiB CSV field, a value full of control characters or bidirectional overrides that
 * would rewrite the terminal it is printed on. So a quote shows at most a few hundred characters, escapes
 * everything that does not print as itself, and says when it was cut.
 */

/** Characters of input a message quotes at most (the escapes of non-printables count as they print). */
export const QUOTE_MAX_CHARS = 200;

/** Characters kept of a library's whole message (DuckDB's), which may itself quote a field of megabytes. */
export const MESSAGE_MAX_CHARS = 400;

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * Control and format characters (C0, DEL, C1, bidi overrides, zero-width), surrogates without their pair,
 * private-use and unassigned code points, and every separator other than the plain space.
 */
const NOT_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}]|(?! )\p{Zs}/u;

function escapeChar(ch: string): string {
  const named = NAMED[ch];
  if (named) return named;
  const code = ch.codePointAt(0)!;
  return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** At most `max` characters of `text` with the non-printables escaped, and whether that is all of it. */
function excerpt(text: string, max: number, escapeQuotes: boolean): { shown: string; whole: boolean } {
  let shown = '';
  for (const ch of text) {
    let piece = NOT_PRINTABLE.test(ch) ? escapeChar(ch) : ch;
    if (escapeQuotes && (ch === '"' || ch === '\\')) piece = `\\${ch}`;
    if (shown.length + piece.length > max) return { shown, whole: false };
    shown += piece;
  }
  return { shown, whole: true };
}

/**
 * `text` as it may appear in a message: non-printables escaped (`\n`, `\u202e`), at most `max` characters
 * long, and when cut, followed by `… (N characters)` with the input's full length. Cuts fall between code
 * points, never inside an escape.
 */
export function printableExcerpt(text: string, max = QUOTE_MAX_CHARS): string {
  const { shown, whole } = excerpt(text, max, false);
  return whole ? shown : `${shown}… (${text.length} characters)`;
}

/** `"text"` for a message: as printableExcerpt, with `"` and `\` escaped too, the cut note after the quote. */
export function quoteInput(text: string, max = QUOTE_MAX_CHARS): string {
  const { shown, whole } = excerpt(text, max, true);
  return whole ? `"${shown}"` : `"${shown}"… (${text.length} characters)`;
}
