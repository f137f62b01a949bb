import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { SnapshotStore } from '../../src/contract/snapshot-store.ts';
import { startServer, type StartedServer } from '../../src/server.ts';

/**
 * The newcomer's path in a real browser (Debian's Chromium, headless, driven by playwright-core) against
 * the real server on a socket: sign up, verify through the development outbox, sign in, create a key and
 * use it on the REST API, search in the app and see the balance fall by exactly what was charged, revoke
 * the key (the API answers 401), sign out. Screenshots of the main pages go to test-results/e2e/
 * (REGDATA_SCREENSHOTS=docs/screenshots refreshes the committed ones).
 */

const CHROMIUM = process.env['REGDATA_CHROMIUM'] ?? '/usr/bin/chromium';
const SHOTS = path.resolve(process.env['REGDATA_SCREENSHOTS'] ?? 'test-results/e2e');
const EMAIL = 'newcomer@example.com';
const PASSWORD = 'a long enough passphrase';

function linkedDataDir(): string {
  const world = new SnapshotStore(inject('testDataDir'));
  const id = world.currentId()!;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-test-e2e-'));
  const store = new SnapshotStore(dir);
  fs.mkdirSync(store.snapshotsDir);
  fs.symlinkSync(world.snapshotDir(id), store.snapshotDir(id));
  store.promote(id);
  return dir;
}

describe.skipIf(!fs.existsSync(CHROMIUM))('dashboard in a real browser', () => {
  let server: StartedServer;
  let browser: Browser;
  let page: Page;
  const dataDir = linkedDataDir();

  beforeAll(async () => {
    const config = loadConfig({
      PORT: '0',
      REGDATA_DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      REGDATA_WALLET_SWEEP_INTERVAL_MS: '0',
      // The sign-up goes through the development outbox, as with `npm start`.
      REGDATA_DEV_MODE: 'true',
    });
    server = await startServer(config, { handleSignals: false });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    const context = await browser.newContext({
      baseURL: server.url,
      viewport: { width: 1280, height: 800 },
      locale: 'en-US',
    });
    page = await context.newPage();
    fs.mkdirSync(SHOTS, { recursive: true });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const shot = (name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
  const balanceShown = async () => Number(await page.locator('#balance').textContent());
  const api = (url: string, key: string) =>
    fetch(`${server.url}${url}`, { headers: { authorization: `Bearer ${key}` } });

  it('signs up, verifies, signs in, uses a key, searches, revokes and signs out', async () => {
    // Sign up from the home page.
    await page.goto('/');
    await page.getByRole('link', { name: 'Create an account' }).click();
    await page.getByLabel('E-mail').fill(EMAIL);
    await page.getByLabel(/^Password/).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.getByRole('heading', { name: 'Check your e-mail' }).waitFor();

    // The development outbox holds the link; following it completes the registration.
    await page.getByRole('link', { name: 'outbox' }).click();
    await page.locator('a[href*="/verify#t="]').first().click();
    await page.waitForURL('**/verify');
    await page.getByText('Your e-mail address is verified').waitFor();

    // Sign in (the e-mail is filled in already).
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/dashboard');
    // Spec 5.6: 30 registration credits and the trial.
    expect(await balanceShown()).toBe(30);
    // A new account is shown how to start: its first key, a curl to copy and the MCP configuration.
    await page.getByRole('heading', { name: 'Get started' }).waitFor();
    await shot('overview-new-account');
    expect(await page.getByLabel(/Call the REST API/).inputValue()).toBe(
      `curl -H "Authorization: Bearer YOUR_KEY" "${server.url}/api/v1/data/companies?country=EE&page_size=5"`,
    );
    const mcp = JSON.parse(await page.getByLabel(/MCP server/).inputValue()) as {
      mcpServers: { regdata: { url: string } };
    };
    expect(mcp.mcpServers.regdata.url).toBe(`${server.url}/mcp`);
    // The favicon is served (and /favicon.ico leads to it).
    const icon = await fetch(`${server.url}/favicon.ico`);
    expect([icon.status, icon.headers.get('content-type')]).toEqual([200, 'image/svg+xml']);
    expect(await page.locator('link[rel="icon"]').getAttribute('href')).toBe('/static/favicon.svg');
    await page.getByText('Trial: REST and MCP use is unmetered').waitFor();
    const account = await server.wallet.balance({ email: EMAIL });
    expect(account.plan).toBe('trial');
    expect(account.lots.map((l) => [l.source, l.amount])).toEqual([['registration', 30]]);

    // Create a key; it is shown once, and it works on the REST API.
    await page.getByRole('link', { name: 'API keys', exact: true }).click();
    await page.getByLabel('Name').fill('e2e key');
    await page.getByRole('button', { name: 'Create API key' }).click();
    const key = await page.locator('#new-key').inputValue();
    expect(key).toMatch(/^rgd_[0-9A-Za-z]{46}$/);
    await shot('keys');
    const rest = await api('/api/v1/data/companies?country=EE&page_size=5', key);
    expect(rest.status).toBe(200);
    const restBody = (await rest.json()) as { data: { items: unknown[] }; meta: { credits_charged: number } };
    expect(restBody.data.items.length).toBe(5);
    // During the trial REST use is unmetered.
    expect(restBody.meta.credits_charged).toBe(0);
    await page.goto('/dashboard/keys');
    expect(await page.locator('#new-key').count()).toBe(0);

    // In-app search: country, a filter, the free count and the quote, then the run.
    await page.getByRole('link', { name: 'Search' }).click();
    const before = await balanceShown();
    await page.getByLabel('Country').selectOption('EE');
    // 10 rows per page by default, so a first search spends little of the trial credits.
    expect(await page.getByLabel('Rows per page').inputValue()).toBe('10');
    await page.getByLabel('VAT-registered').selectOption('true');
    // A location from the tree picker: the page must send the node's whole `codes` list (spec 4.2). The
    // expected count is the REST count with the codes taken from /locations directly.
    const locations = (await (await api('/api/v1/data/locations?country=EE&query=Tallinn', key)).json()) as {
      kood: string;
      label: string;
      codes: string[];
    }[];
    const tallinn = locations.find((n) => n.label === 'Tallinn')!;
    expect(tallinn.codes.length).toBeGreaterThan(1);
    const restCount = (await (
      await api(
        `/api/v1/data/count?country=EE&vat_active=true&${tallinn.codes.map((c) => `ehak_kood=${c}`).join('&')}`,
        key,
      )
    ).json()) as { count: number };
    // Sending the node's `kood` alone would count differently (a parent code matches only rows tagged with
    // exactly it), so the check below tells the two apart.
    const koodOnly = (await (
      await api(`/api/v1/data/count?country=EE&vat_active=true&ehak_kood=${tallinn.kood}`, key)
    ).json()) as { count: number };
    expect(restCount.count).toBeGreaterThan(0);
    expect(koodOnly.count).not.toBe(restCount.count);
    await page.locator('#f-ehak_kood').fill('Tallinn');
    await page.getByRole('button', { name: `${tallinn.kood} Tallinn`, exact: true }).click();
    await page.locator('#count', { hasText: `${restCount.count} companies match` }).waitFor();
    const count = Number((await page.locator('#count').textContent())!.match(/^(\d+)/)![1]);
    const expectedRows = Math.min(10, count);
    const price = server.wallet.prices.EE;
    await expect(page.locator('#quote').textContent()).resolves.toContain(
      `costs ${(expectedRows * price).toFixed(2)} credits for ${expectedRows} rows`,
    );
    await shot('search-form');
    // A double click runs (and charges) the search once.
    await page.getByRole('button', { name: 'Run search' }).dblclick();
    await page.locator('#charged').waitFor();
    const charged = Number((await page.locator('#charged').textContent())!.match(/Charged ([\d.]+)/)![1]);
    expect(await page.locator('#results-table tbody tr').count()).toBe(expectedRows);
    // Charged exactly rows x price (independent of the page), and the balance fell by exactly that.
    expect(charged).toBeCloseTo(expectedRows * price, 6);
    const after = await balanceShown();
    expect(after).toBeCloseTo(before - charged, 6);
    expect((await server.wallet.balance({ email: EMAIL })).balance).toBeCloseTo(30 - expectedRows * price, 6);
    // The charge was recorded on the in-app channel.
    const usage = await server.wallet.usage({ email: EMAIL });
    expect(usage.records.filter((r) => r.operation === 'search' && r.channel === 'app').length).toBe(1);

    // The next page's button says what it costs before it is clicked; a double click buys it once.
    expect(count).toBeGreaterThan(10);
    const nextRows = Math.min(10, count - 10);
    const nextButton = page.getByRole('button', {
      name: `Next page (${nextRows} rows, ${(nextRows * price).toFixed(2)} credits)`,
    });
    await nextButton.dblclick();
    await page.locator('#results-table caption', { hasText: 'Page 2 of' }).waitFor();
    await page
      .getByRole('button', { name: `Previous page (10 rows, ${(10 * price).toFixed(2)} credits)` })
      .waitFor();
    const spent = (expectedRows + nextRows) * price;
    expect((await server.wallet.balance({ email: EMAIL })).balance).toBeCloseTo(30 - spent, 6);
    expect(
      (await server.wallet.usage({ email: EMAIL })).records.filter(
        (r) => r.operation === 'search' && r.channel === 'app',
      ).length,
    ).toBe(2);

    // A company's detail view (one more row), double-clicked: charged once.
    await page.locator('#results-table tbody tr').first().getByRole('button', { name: /Open/ }).dblclick();
    await page.locator('#detail-h').waitFor();
    await page.getByRole('heading', { name: 'Contacts' }).waitFor();
    // Labelled sections for people: no raw JSON and no field names.
    for (const h of ['Identity', 'Status', 'Address', 'Contacts', 'Activities', 'People', 'Finances'])
      await page.getByRole('heading', { name: h, exact: true }).waitFor();
    const detailText = (await page.locator('#detail').textContent())!;
    expect(detailText).not.toMatch(/[{}"]|_period|registrikood|latest_metrics|kmkr|null|undefined/);
    await shot('search-results');
    expect((await server.wallet.balance({ email: EMAIL })).balance).toBeCloseTo(30 - spent - price, 6);
    expect(
      (await server.wallet.usage({ email: EMAIL })).records.filter(
        (r) => r.operation === 'detail' && r.channel === 'app',
      ).length,
    ).toBe(1);

    // History, once shown, cannot be bought again by another click.
    await page.getByRole('button', { name: /^Show history/ }).click();
    await page.getByRole('heading', { name: 'History', exact: true }).waitFor();
    expect(await page.getByRole('button', { name: 'History shown below' }).isDisabled()).toBe(true);
    expect(
      (await server.wallet.usage({ email: EMAIL })).records.filter((r) => r.operation === 'history').length,
    ).toBeLessThanOrEqual(1);

    // The overview shows the in-app usage.
    await page.getByRole('link', { name: 'Overview' }).click();
    expect(await page.getByRole('heading', { name: 'Get started' }).count()).toBe(0);
    await expect(page.locator('table').filter({ hasText: 'By channel' }).textContent()).resolves.toContain(
      'In-app',
    );
    await shot('overview');

    // Revoke the key: the API refuses it from now on.
    await page.getByRole('link', { name: 'API keys', exact: true }).click();
    await page.getByRole('button', { name: /Revoke key e2e key/ }).click();
    // The first click only asks; the key still works until the customer confirms.
    await page.getByRole('heading', { name: 'Revoke key e2e key?' }).waitFor();
    await shot('keys-revoke-confirm');
    expect((await api('/api/v1/data/countries', key)).status).toBe(200);
    await page.getByRole('button', { name: 'Yes, revoke key e2e key' }).click();
    await expect(page.locator('#keys').textContent()).resolves.toContain('revoked');
    expect((await api('/api/v1/data/countries', key)).status).toBe(401);

    // Ordering a plan asks first and says what it places; nothing is ordered until confirmed.
    await page.getByRole('link', { name: 'Plans and top-ups' }).click();
    await shot('billing');
    await page.getByRole('button', { name: 'Order the Estonia plan, 300 € per month' }).click();
    await page.getByRole('heading', { name: 'Place this order?' }).waitFor();
    await shot('billing-confirm');
    expect((await server.wallet.listOrders({})).filter((o) => o.email === EMAIL)).toEqual([]);
    await page.getByRole('link', { name: 'Cancel' }).click();
    await page.getByRole('button', { name: 'Order top-up' }).click();
    await page.getByRole('button', { name: 'Place order for Credit top-up, 20.00 €' }).click();
    await page.getByText(/Order ord_\w+ placed/).waitFor();
    expect(
      (await server.wallet.listOrders({})).filter((o) => o.email === EMAIL).map((o) => [o.kind, o.amount]),
    ).toEqual([['topup', 20]]);

    // Sign out: the dashboard sends us back to sign in.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL('**/signin');
    await page.goto('/dashboard');
    await page.waitForURL('**/signin');
  });

  it('works by keyboard alone and fits a phone screen', async () => {
    // A German reader: numbers in the search come in the reader's own format.
    const phone = await browser.newContext({
      baseURL: server.url,
      viewport: { width: 375, height: 812 },
      locale: 'de-DE',
    });
    const p = await phone.newPage();
    try {
      await p.goto('/signin');
      // The first Tab lands on the skip link; then the form is reachable and submittable with keys only.
      await p.keyboard.press('Tab');
      expect(await p.evaluate('document.activeElement.textContent')).toBe('Skip to content');
      await p.getByLabel('E-mail').focus();
      await p.keyboard.type(EMAIL);
      await p.keyboard.press('Tab');
      await p.keyboard.type(PASSWORD);
      await p.keyboard.press('Enter');
      await p.waitForURL('**/dashboard');
      for (const url of ['/dashboard', '/dashboard/keys', '/search', '/dashboard/billing']) {
        await p.goto(url);
        // No horizontal scrolling of the page on a 375 px wide screen (wide tables scroll inside their box).
        const fits = await p.evaluate('document.documentElement.scrollWidth <= window.innerWidth');
        expect({ url, fits }).toEqual({ url, fits: true });
      }
      await p.screenshot({ path: path.join(SHOTS, 'phone-billing.png'), fullPage: false });

      // The count and the quote in the reader's locale (German: 1.234 and 0,20), against a REST count.
      const accountId = (await server.wallet.balance({ email: EMAIL })).accountId;
      const { key } = await server.wallet.createAccountKey({ accountId, name: 'locale check' });
      const { count } = (await (await api('/api/v1/data/count?country=EE', key)).json()) as { count: number };
      const de = (n: number, digits = 0) =>
        new Intl.NumberFormat('de-DE', {
          minimumFractionDigits: digits,
          maximumFractionDigits: digits,
        }).format(n);
      await p.goto('/search');
      await p.getByLabel('Country').selectOption('EE');
      await p.locator('#count', { hasText: `${de(count)} companies match` }).waitFor();
      const rows = Math.min(10, count);
      await expect(p.locator('#quote').textContent()).resolves.toContain(
        `costs ${de(rows * server.wallet.prices.EE, 2)} credits for ${rows} rows`,
      );

      // Results on a phone are cards: every value gets the full width (a table would give each of its
      // eight columns about 40 px, one letter per line), and the page still does not scroll sideways.
      await p.getByRole('button', { name: 'Run search' }).click();
      await p.locator('#charged').waitFor();
      const widths = await p
        .locator('#results-table tbody td')
        .evaluateAll((tds) =>
          tds.filter((td) => td.textContent).map((td) => td.getBoundingClientRect().width),
        );
      expect(widths.length).toBeGreaterThan(0);
      expect(Math.min(...widths)).toBeGreaterThan(250);
      expect(await p.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
      await p.locator('#results').scrollIntoViewIfNeeded();
      await p.screenshot({ path: path.join(SHOTS, 'phone-search-results.png'), fullPage: false });
    } finally {
      await phone.close();
    }
  });
});
