import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { publishWorld, type PublishWorld } from '../watchlists/publish-world.ts';
import { buildWebApp, registeredClient, type Client, type WebTestApp } from './web-app.ts';

/*
 * Issue 31 on the dashboard: the Webhooks page over the real app. An endpoint added there gets its secret
 * once, receives the signed events of a real publish from the real deliverer, shows them in its delivery
 * log, sends one again on request (free), rotates its secret, and is deleted after a confirmation.
 */

let world: PublishWorld;
let t: WebTestApp;
let receiver: http.Server;
let hookUrl: string;
const received: { id: string; body: string; headers: Record<string, string> }[] = [];

beforeAll(async () => {
  world = await publishWorld(inject('testDataDir'), 'hooks-web');
  t = await buildWebApp(world.dataDir);
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      received.push({
        id: String(req.headers['webhook-id']),
        body,
        headers: req.headers as Record<string, string>,
      });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
}, 180_000);
afterAll(async () => {
  await t?.close();
  await new Promise((resolve) => receiver?.close(resolve));
  world?.remove();
});

const onceOf = (body: string) => /name="_once" value="([^"]+)"/.exec(body)?.[1] ?? '';
const secretOf = (body: string) => /id="new-secret" readonly value="([^"]+)"/.exec(body)?.[1] ?? '';

async function signedUp(email: string): Promise<{ c: Client; accountId: string }> {
  const c = await registeredClient(t, email, 'correct horse battery');
  const row = await t.wallet.store.get<{ id: string }>('SELECT id FROM accounts WHERE email = ?', [email]);
  return { c, accountId: row!.id };
}

describe('the Webhooks page', () => {
  it('adds an endpoint with its secret shown once, logs signed deliveries, replays, rotates and deletes', async () => {
    const { c, accountId } = await signedUp('web-hooks@test.local');
    const page = await c.get('/dashboard/webhooks');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('No endpoint yet.');
    const added = await c.post('/dashboard/webhooks', { _once: onceOf(page.body), url: hookUrl });
    expect(added.statusCode).toBe(200);
    const secret = secretOf(added.body);
    expect(secret).toMatch(/^whsec_/);
    // Shown once: the next page has the endpoint but not the secret.
    const after = await c.get('/dashboard/webhooks');
    expect(after.body).toContain(hookUrl);
    expect(after.body).not.toContain(secret);

    // A watched company changes in a publish; the deliverer sends its event, signed with that secret.
    const [code] = world.codes as [string];
    await t.watchlists!.create(accountId, { name: 'one', country: 'EE', companies: [code] });
    await world.publishEE(t.engine, t.watchlists!, [
      `UPDATE stage_companies SET arinimi = arinimi || ' Hooked' WHERE registrikood = '${code}'`,
    ]);
    await t.webhooks!.deliverer.tick();
    expect(received).toHaveLength(1);
    const event = new Webhook(secret).verify(received[0]!.body, received[0]!.headers) as {
      data: { registrikood: string };
    };
    expect(event.data.registrikood).toBe(code);
    const logged = await c.get('/dashboard/webhooks');
    expect(logged.body).toContain(received[0]!.id);
    expect(logged.body).toContain('delivered');

    // Send again: queued, delivered once more, charged no second time.
    const balance = (await t.wallet.balance({ accountId })).balance;
    const deliveryId = /name="delivery" value="(\d+)"/.exec(logged.body)![1]!;
    const endpointId = /action="\/dashboard\/webhooks\/(we_[^/]+)\/replay"/.exec(logged.body)![1]!;
    const replay = await c.post(`/dashboard/webhooks/${endpointId}/replay`, { delivery: deliveryId });
    expect(replay.body).toContain('Queued to be sent again');
    await t.webhooks!.deliverer.tick();
    expect(received.map((r) => r.id)).toEqual([received[0]!.id, received[0]!.id]);
    expect((await t.wallet.balance({ accountId })).balance).toBe(balance);

    const rotated = await c.post(`/dashboard/webhooks/${endpointId}/rotate`, {});
    const next = secretOf(rotated.body);
    expect(next).toMatch(/^whsec_/);
    expect(next).not.toBe(secret);
    expect(rotated.body).toContain('The previous secret also signs for 24 hours.');

    const ask = await c.post(`/dashboard/webhooks/${endpointId}/delete`, {});
    expect(ask.body).toContain('Yes, delete it');
    expect(await t.webhooks!.endpoints.list(accountId)).toHaveLength(1);
    const gone = await c.post(`/dashboard/webhooks/${endpointId}/delete`, { confirm: 'yes' });
    expect(gone.statusCode).toBe(303);
    expect(await t.webhooks!.endpoints.list(accountId)).toEqual([]);
  });

  it("refuses a bad URL inline and another account's endpoint with 404", async () => {
    const { c } = await signedUp('web-hooks-2@test.local');
    const page = await c.get('/dashboard/webhooks');
    const bad = await c.post('/dashboard/webhooks', { _once: onceOf(page.body), url: 'ftp://example.com/x' });
    expect(bad.statusCode).toBe(422);
    expect(bad.body).toContain('role="alert"');
    expect(bad.body).toContain('ftp://example.com/x');
    const other = await c.post('/dashboard/webhooks/we_AAAAAAAAAAAAAAAA/rotate', {});
    expect(other.statusCode).toBe(404);
  });
});
