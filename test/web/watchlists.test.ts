import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { checkSearch } from '../../src/services/watchlists.ts';
import { watchHref } from '../../src/web/static/js/search/state.js';
import { publishWorld, type PublishWorld } from '../watchlists/publish-world.ts';
import { buildWebApp, registeredClient, type Client, type WebTestApp } from './web-app.ts';

/*
 * Issue 31 on the dashboard: the Watchlists page over the real app (the browser stand-in keeps cookies and
 * the CSRF token), creating through the same services as REST, refusing bad input inline, creating once
 * per form, deleting after a confirmation, and counting the account's events of a real publish without
 * charging or marking them.
 */

let world: PublishWorld;
let t: WebTestApp;
let codes: string[];
let n = 0;

beforeAll(async () => {
  world = await publishWorld(inject('testDataDir'), 'watch-web');
  codes = world.codes;
  t = await buildWebApp(world.dataDir);
}, 180_000);
afterAll(async () => {
  await t?.close();
  world?.remove();
});

async function signedUp(): Promise<{ c: Client; accountId: string; email: string }> {
  const email = `web-watch-${++n}@test.local`;
  const c = await registeredClient(t, email, 'correct horse battery');
  const row = await t.wallet.store.get<{ id: string }>('SELECT id FROM accounts WHERE email = ?', [email]);
  return { c, accountId: row!.id, email };
}

/** The hidden single-use token of the create forms on the last page. */
const onceOf = (body: string) => /name="_once" value="([^"]+)"/.exec(body)?.[1] ?? '';

async function create(c: Client, form: Record<string, string>) {
  const page = await c.get('/dashboard/watchlists');
  return c.post('/dashboard/watchlists', { _once: onceOf(page.body), ...form });
}

describe('the Watchlists page', () => {
  it('creates a list from pasted codes, once per form, and lists it', async () => {
    const { c, accountId } = await signedUp();
    const empty = await c.get('/dashboard/watchlists');
    expect(empty.statusCode).toBe(200);
    expect(empty.body).toContain('No watchlists yet.');
    expect(empty.body).toContain('href="/dashboard/watchlists" aria-current="page"');
    const [a, b, cc] = codes as [string, string, string];
    const form = { kind: 'companies', name: 'Suppliers', country: 'EE', codes: `${a}\n${b}, ${cc}\n${a}` };
    const once = onceOf(empty.body);
    const made = await c.post('/dashboard/watchlists', { _once: once, ...form });
    expect(made.statusCode).toBe(200);
    expect(made.body).toContain('Watchlist Suppliers created (EE, 3 companies).');
    // The same form sent again (a double click, a resend): nothing new, the first answer.
    const again = await c.post('/dashboard/watchlists', { _once: once, ...form });
    expect(again.body).toContain('Watchlist Suppliers created (EE, 3 companies).');
    const lists = await t.watchlists!.list(accountId);
    expect(lists.map((w) => [w.name, w.country, w.kind, w.companies])).toEqual([
      ['Suppliers', 'EE', 'companies', 3],
    ]);
    expect((await t.watchlists!.get(accountId, lists[0]!.id)).registrikoodid).toEqual([a, b, cc].sort());
    const page = await c.get('/dashboard/watchlists');
    expect(page.body).toMatch(/<td>Suppliers<\/td>\s*<td>EE<\/td>\s*<td>3 companies<\/td>/);
    // A form token from nowhere creates nothing.
    const forged = await c.post('/dashboard/watchlists', { _once: 'x'.repeat(24), ...form });
    expect(forged.statusCode).toBe(409);
    expect(await t.watchlists!.list(accountId)).toHaveLength(1);
  });

  it('shows the service refusals inline beside the form, keeps what was typed, and stores nothing', async () => {
    const { c, accountId } = await signedUp();
    const bad = await create(c, { kind: 'companies', name: 'x', country: 'EE', codes: `${codes[0]}\n123` });
    expect(bad.statusCode).toBe(422);
    expect(bad.body).toMatch(
      /<ul class="error" id="companies-errors" role="alert">\s*<li>Registration codes: &quot;123&quot; is not a EE registration code/,
    );
    expect(bad.body).toContain(`>${codes[0]}\n123</textarea>`);
    const noCountry = await create(c, { kind: 'companies', name: 'x', country: '', codes: String(codes[0]) });
    expect(noCountry.statusCode).toBe(422);
    expect(noCountry.body).toContain('<li>Country: ');
    const noCodes = await create(c, { kind: 'companies', name: 'x', country: 'EE', codes: ' , \n' });
    expect(noCodes.body).toContain('<li>Registration codes: ');
    const badFilter = await create(c, {
      kind: 'search',
      name: 'x',
      country: 'EE',
      filters: 'employees_band=lots',
    });
    expect(badFilter.statusCode).toBe(422);
    expect(badFilter.body).toMatch(/id="search-errors" role="alert">\s*<li>employees_band: /);
    expect(badFilter.body).toContain('value="employees_band=lots"');
    const otherCountry = await create(c, { kind: 'search', name: 'x', country: 'EE', filters: 'country=LV' });
    expect(otherCountry.body).toContain('the filters are for country LV, the watchlist is for EE');
    expect(await t.watchlists!.list(accountId)).toEqual([]);
  });

  it('saves the search page\'s "Watch this search" as the search /count means', async () => {
    const { c, accountId } = await signedUp();
    const search = await c.get('/search');
    expect(search.body).toContain('id="watch-search"');
    const params = { legal_form: ['OÜ', 'AS'], vat_active: 'true' };
    const href = watchHref('EE', params) as string;
    const url = new URL(href, 'http://x');
    const page = await c.get(`${url.pathname}${url.search}`);
    expect(page.body).toContain('<option value="EE" selected>');
    const filters = url.searchParams.get('filters')!;
    expect(page.body).toContain(`value="${filters.replace(/&/g, '&amp;')}"`);
    const made = await c.post('/dashboard/watchlists', {
      _once: onceOf(page.body),
      kind: 'search',
      name: 'Big',
      country: 'EE',
      filters,
    });
    expect(made.statusCode).toBe(200);
    const [w] = await t.watchlists!.list(accountId);
    expect(w?.search).toEqual({ legal_form: ['OÜ', 'AS'], vat_active: true });
    expect(() => checkSearch('EE', w!.search!)).not.toThrow();
    expect((await c.get('/dashboard/watchlists')).body).toContain(
      'Search: legal_form: OÜ, AS; vat_active: true',
    );
  });

  it("deletes after a confirmation, only the account's own, and never without the CSRF token", async () => {
    const one = await signedUp();
    const two = await signedUp();
    await create(one.c, { kind: 'companies', name: 'Mine', country: 'EE', codes: String(codes[0]) });
    const [w] = await t.watchlists!.list(one.accountId);
    const url = `/dashboard/watchlists/${w!.id}/delete`;
    const asked = await one.c.post(url, {});
    expect(asked.statusCode).toBe(200);
    expect(asked.body).toContain('Delete watchlist Mine?');
    expect(await t.watchlists!.list(one.accountId)).toHaveLength(1);
    expect((await two.c.post(url, { confirm: 'yes' })).statusCode).toBe(404);
    expect((await one.c.post(url, { confirm: 'yes' }, { csrf: null })).statusCode).toBe(403);
    expect(await t.watchlists!.list(one.accountId)).toHaveLength(1);
    const done = await one.c.post(url, { confirm: 'yes' });
    expect(done.statusCode).toBe(303);
    expect(await t.watchlists!.list(one.accountId)).toEqual([]);
    expect((await one.c.post(url, { confirm: 'yes' })).statusCode).toBe(404);
  });

  it('counts the events of a publish without charging them or marking them charged', async () => {
    const { c, accountId, email } = await signedUp();
    const [a, b, cc] = codes as [string, string, string];
    await create(c, { kind: 'companies', name: 'Watched', country: 'EE', codes: `${a}\n${b}` });
    expect((await c.get('/dashboard/watchlists')).body).toContain('No events yet');
    await world.publishEE(t.engine, t.watchlists!, [
      `DELETE FROM stage_companies WHERE registrikood = '${a}'`,
      `UPDATE stage_companies SET arinimi = arinimi || ' Qzxweb' WHERE registrikood IN ('${b}', '${cc}')`,
    ]);
    const before = (await t.wallet.balance({ email })).balance;
    const page = await c.get('/dashboard/watchlists');
    expect(page.body).toMatch(
      /<ul id="event-counts">\s*<li>Estonia: 2 events, the newest from the publish of \d{4}-\d\d-\d\d/,
    );
    // The content is what a pull charges for: neither company nor value is on the page.
    expect(page.body).not.toContain('Qzxweb');
    expect((await t.wallet.balance({ email })).balance).toBe(before);
    const marked = await t.wallet.store.get<{ n: number }>(
      'SELECT count(*) AS n FROM event_charges WHERE account_id = ?',
      [accountId],
    );
    expect(Number(marked?.n)).toBe(0);
  });

  it('says so where the server keeps no watchlists', async () => {
    const bare = await buildWebApp(world.dataDir, { watchlists: false });
    try {
      const c = await registeredClient(bare, 'bare@test.local', 'correct horse battery');
      const page = await c.get('/dashboard/watchlists');
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain('This server does not keep watchlists.');
      // Only the page is routed: a create has nowhere to go.
      expect((await c.post('/dashboard/watchlists', { kind: 'companies' })).statusCode).toBe(405);
    } finally {
      await bare.close();
    }
  });
});
