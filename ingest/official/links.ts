import type { Download, DownloadContext } from './types.ts';

/** One fixed URL, saved under its official name. */
export function fixed(
  url: string,
  saveAs: string,
  headers?: Readonly<Record<string, string>>,
): (ctx: DownloadContext) => Promise<Download[]> {
  return async () => [{ url, saveAs, ...(headers && { headers }) }];
}

/**
 * Links scraped from a landing page: RIK puts the date of the data in its annual-report file names
 * (`1.aruannete_yldandmed_kuni_31102026.zip`), so the current names are only known from the page.
 * `pick` chooses among the matching names (e.g. the newest).
 */
export function scraped(
  page: string,
  link: RegExp,
  pick: (names: string[]) => string[] = (n) => n,
): (ctx: DownloadContext) => Promise<Download[]> {
  return async (ctx) => {
    const html = await ctx.fetchText(page);
    const found = new Map<string, string>();
    for (const m of html.matchAll(/href\s*=\s*["']([^"']+)["']/gi)) {
      const url = new URL(m[1]!.replaceAll('&amp;', '&'), page);
      const name = decodeURIComponent(url.pathname.split('/').pop() ?? '');
      if (link.test(name)) found.set(name, url.toString());
    }
    if (found.size === 0) throw new Error(`no link like ${link.source} on ${page}`);
    return pick([...found.keys()]).map((name) => ({ url: found.get(name)!, saveAs: name }));
  };
}

/** `DDMMYYYY` inside a name → `YYYYMMDD`, so dated names sort by date. */
export function dateKey(name: string): string {
  const m = /_(\d{2})(\d{2})(\d{4})(?:_\d+)?\./.exec(name);
  return m ? `${m[3]}${m[2]}${m[1]}|${name}` : name;
}
