/** The CLI's only way to print: stdout for results, stderr for progress and errors. */
export const out = {
  line(text = ''): void {
    process.stdout.write(`${text}\n`);
  },
  json(value: unknown): void {
    process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  },
  info(text: string): void {
    process.stderr.write(`${text}\n`);
  },
  error(text: string): void {
    process.stderr.write(`regdata: ${text}\n`);
  },
  table(rows: Record<string, string | number | null>[]): void {
    if (rows.length === 0) return;
    const keys = Object.keys(rows[0]!);
    const widths = keys.map((k) => Math.max(k.length, ...rows.map((r) => String(r[k] ?? '').length)));
    const fmt = (vals: string[]) =>
      vals
        .map((v, i) => v.padEnd(widths[i]!))
        .join('  ')
        .trimEnd();
    out.line(fmt(keys));
    out.line(fmt(widths.map((w) => '-'.repeat(w))));
    for (const r of rows) out.line(fmt(keys.map((k) => String(r[k] ?? ''))));
  },
};
