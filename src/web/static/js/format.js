// @ts-check
/**
 * Numbers, money, periods, errors and CSV as the dashboard shows them. Pure: nothing here reads the page or
 * a browser global, so test/web/dashboard-script.test.ts runs it under Node.
 */

/** @typedef {{ year?: number, quarter?: number, month?: number } | null | undefined} Period */

/**
 * Formatters in the reader's locale (thousands separators, decimal mark, money with its currency).
 * @param {string | undefined} locale the browser's language; undefined is the runtime's default
 */
export function formats(locale) {
  const creditFormat = new Intl.NumberFormat(locale, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  const countFormat = new Intl.NumberFormat(locale, { maximumFractionDigits: 1 });
  const priceFormat = new Intl.NumberFormat(locale, { maximumFractionDigits: 6 });
  const months = new Intl.DateTimeFormat(locale, { month: 'long', year: 'numeric', timeZone: 'UTC' });
  return {
    /** @param {number | string} n credits, always with two decimals */
    credits: (n) => creditFormat.format(Number(n)),
    /** @param {number | string} n a count (at most one decimal) */
    count: (n) => countFormat.format(Number(n)),
    /** @param {number | string} n a row price, as precise as it is declared */
    price: (n) => priceFormat.format(Number(n)),
    /**
     * @param {number | string} n a whole amount
     * @param {string} currency ISO 4217
     */
    money: (n, currency) =>
      new Intl.NumberFormat(locale, { style: 'currency', currency, maximumFractionDigits: 0 }).format(
        Number(n),
      ),
    /**
     * A metrics period as people write it: "2026 Q1", "March 2026", "2025".
     * @param {Period} p
     */
    period: (p) => {
      if (!p || typeof p.year !== 'number') return '';
      if (p.quarter && p.quarter > 0) return `${p.year} Q${p.quarter}`;
      if (p.month && p.month > 0) return months.format(new Date(Date.UTC(p.year, p.month - 1, 1)));
      return String(p.year);
    },
  };
}

/** @typedef {ReturnType<typeof formats>} Formats */

/**
 * Spec 2.2: annual-report figures are in the register's currency (the country profile's, sent in the
 * page's boot data: EUR, Norway's NOK); quarterly turnover is EUR.
 * @param {{ currency?: string } | undefined} country
 */
export const reportCurrency = (country) => country?.currency ?? 'EUR';

/**
 * What a failed call says: a 422's issues as "param: message" pairs, else its detail, else the status.
 * @param {number} status
 * @param {{ detail?: string | { param: string, msg: string }[] } | null | undefined} body
 */
export function errorText(status, body) {
  const detail = body?.detail;
  if (Array.isArray(detail)) return detail.map((d) => `${d.param}: ${d.msg}`).join('; ') || `HTTP ${status}`;
  return detail || `HTTP ${status}`;
}

/**
 * Rows as CSV (RFC 4180, CRLF), a column for every key any row has. Every cell is quoted, and one starting
 * with = + - or @ gets a leading apostrophe, so a spreadsheet shows it rather than running it as a formula.
 * @param {Record<string, unknown>[]} rows
 */
export function csvText(rows) {
  const cols = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  /** @param {unknown} v */
  const cell = (v) => {
    const s = v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);
    return `"${(/^[=+\-@]/.test(s) ? `'${s}` : s).replace(/"/g, '""')}"`;
  };
  return [cols.map(cell).join(','), ...rows.map((r) => cols.map((c) => cell(r[c])).join(','))].join('\r\n');
}
