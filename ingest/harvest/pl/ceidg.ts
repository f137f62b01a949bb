import type { HttpOptions } from '../http.ts';
import type { HarvestManifest } from '../manifest.ts';
import { HarvestSession, type HarvestLog } from '../session.ts';

/*
 * CEIDG (the sole-trader register, dane.biznes.gov.pl; registry-formats.md 6.3): a bearer token per user,
 * pages of companies from `/firmy` (zero-based `page`, `limit`, the next page's address in `links.next`),
 * and one company's details at its `link` (`/firma/{id}`), which adds the contacts and PKD codes the list
 * leaves out. Each page and each detail answer is stored as received. The public material shows no change
 * feed, so every run pages through the whole list (the state file resumes a run at the page it stopped).
 */

export const CEIDG_PREFIX = 'pl_ceidg';
export const CEIDG_DEFAULT_URL = 'https://dane.biznes.gov.pl/api/ceidg/v3';

export interface CeidgOptions {
  baseUrl: string;
  token: string;
  http: HttpOptions;
  /** Extra query of the list (e.g. `status=AKTYWNY`); empty = every company. */
  query: string;
  pageSize: number;
  /** Fetch each company's details as well (one more request per company). */
  details: boolean;
  now: Date;
  signal?: AbortSignal;
  log: HarvestLog;
}

interface CeidgState {
  next: string | null;
  pages: number;
  done: boolean;
}

interface Page {
  firmy?: { id?: string; link?: string }[];
  firma?: { id?: string; link?: string }[];
  links?: { next?: string | null; self?: string | null };
}

/**
 * The page after `page`, or null at the end. The live v3 service points `links.next` at the page itself on
 * the last page (measured against production by the ceidg_tool project: "on the last page,
 * links.next == links.self"), so following `next` alone would fetch the last page forever.
 */
function nextPage(page: Page, requested: string): string | null {
  const list = page.firmy ?? page.firma ?? [];
  const next = page.links?.next ?? null;
  if (list.length === 0 || !next || next === requested || next === page.links?.self) return null;
  return next;
}

export async function harvestCeidg(
  dir: string,
  manifest: HarvestManifest,
  opts: CeidgOptions,
): Promise<void> {
  const base = opts.baseUrl.replace(/\/+$/, '');
  const first = `${base}/firmy?page=0&limit=${opts.pageSize}${opts.query ? `&${opts.query.replace(/^[?&]/, '')}` : ''}`;
  const s = new HarvestSession<CeidgState>(
    dir,
    'ceidg',
    manifest,
    { next: first, pages: 0, done: false },
    opts.http,
    opts.log,
    { now: opts.now, mode: 'full' },
  );
  if (s.state.get().done) s.state.save({ next: first, pages: 0, done: false });
  const headers = { authorization: `Bearer ${opts.token}`, accept: 'application/json' };
  try {
    let { next, pages } = s.state.get();
    while (next) {
      opts.signal?.throwIfAborted();
      const answer = await s.http.request(next, { headers });
      if (answer.status === 401 || answer.status === 403) {
        throw new Error(`CEIDG refused the token (HTTP ${answer.status}); is REGDATA_CEIDG_TOKEN right?`);
      }
      // 204: no company matches (an empty list is answered without a body).
      if (answer.status === 204) break;
      if (answer.status !== 200) throw new Error(`${next}: unexpected HTTP ${answer.status}`);
      s.store(CEIDG_PREFIX, answer, String(pages), 'firmy');
      const page = JSON.parse(answer.body.toString('utf8')) as Page;
      const list = page.firmy ?? page.firma ?? [];
      if (opts.details) {
        for (const f of list) {
          const link = f.link ?? (f.id ? `${base}/firma/${f.id}` : null);
          if (!link) continue;
          const detail = await s.http.request(link, { headers });
          if (detail.status === 200) s.store(CEIDG_PREFIX, detail, f.id ?? link, 'firma');
        }
      }
      pages++;
      next = nextPage(page, next);
      s.checkpoint({ next, pages });
    }
    s.entry.detail = { pages };
    s.checkpoint({ next: null, done: true });
    s.finish('complete');
  } catch (err) {
    s.finish(opts.signal?.aborted ? 'interrupted' : 'failed', err);
    throw err;
  }
}
