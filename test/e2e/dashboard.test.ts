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
    const context = await browser.newContext({ baseURL: server.url, viewport: { width: 1100, height: 900 } });
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
    await page.getByText('Trial: REST and MCP use is unmetered').waitFor();
    const account = server.wallet.balance({ email: EMAIL });
    expect(account.plan).toBe('trial');
    expect(account.lots.map((l) => [l.source, l.amount])).toEqual([['registration', 30]]);

    // Create a key; it is shown once, and it works on the REST API.
    await page.getByRole('link', { name: 'API keys' }).click();
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
    await page.getByLabel('Rows per page').selectOption('10');
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
    await page.getByRole('button', { name: 'Run search' }).click();
    await page.locator('#charged').waitFor();
    const charged = Number((await page.locator('#charged').textContent())!.match(/Charged ([\d.]+)/)![1]);
    expect(await page.locator('#results-table tbody tr').count()).toBe(expectedRows);
    // Charged exactly rows x price (independent of the page), and the balance fell by exactly that.
    expect(charged).toBeCloseTo(expectedRows * price, 6);
    const after = await balanceShown();
    expect(after).toBeCloseTo(before - charged, 6);
    expect(server.wallet.balance({ email: EMAIL }).balance).toBeCloseTo(30 - expectedRows * price, 6);
    // The charge was recorded on the in-app channel.
    const usage = server.wallet.usage({ email: EMAIL });
    expect(usage.records.filter((r) => r.operation === 'search' && r.channel === 'app').length).toBe(1);

    // A company's detail view (one more row).
    await page.locator('#results-table tbody tr').first().getByRole('button', { name: /Open/ }).click();
    await page.locator('#detail-h').waitFor();
    await page.getByRole('heading', { name: 'Contacts' }).waitFor();
    await shot('search-results');
    expect(server.wallet.balance({ email: EMAIL }).balance).toBeCloseTo(30 - (expectedRows + 1) * price, 6);

    // The overview shows the in-app usage.
    await page.getByRole('link', { name: 'Overview' }).click();
    await expect(page.locator('table').filter({ hasText: 'By channel' }).textContent()).resolves.toContain(
      'In-app',
    );
    await shot('overview');

    // Revoke the key: the API refuses it from now on.
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('button', { name: /Revoke key e2e key/ }).click();
    await expect(page.locator('#keys').textContent()).resolves.toContain('revoked');
    expect((await api('/api/v1/data/countries', key)).status).toBe(401);

    await page.getByRole('link', { name: 'Plans and top-ups' }).click();
    await shot('billing');

    // Sign out: the dashboard sends us back to sign in.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL('**/signin');
    await page.goto('/dashboard');
    await page.waitForURL('**/signin');
  });

  it('works by keyboard alone and fits a phone screen', async () => {
    const phone = await browser.newContext({ baseURL: server.url, viewport: { width: 390, height: 844 } });
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
        // No horizontal scrolling of the page on a 390 px wide screen (wide tables scroll inside their box).
        const fits = await p.evaluate('document.documentElement.scrollWidth <= window.innerWidth');
        expect({ url, fits }).toEqual({ url, fits: true });
      }
      await p.screenshot({ path: path.join(SHOTS, 'phone-billing.png'), fullPage: false });
    } finally {
      await phone.close();
    }
  });
});
