import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { Webhook } from 'standardwebhooks';

/**
 * One POST of one event to one endpoint, signed per the Standard Webhooks specification with its
 * library (`webhook-id`, `webhook-timestamp`, `webhook-signature`). The request connects to the address
 * url-policy.ts vetted, never to what a second lookup might say; redirects are not followed (a 3xx is a
 * failure), the answer is read up to a cap and dropped, and the whole exchange has one deadline.
 */

export interface SendLimits {
  timeoutMs: number;
  maxResponseBytes: number;
}

export const DEFAULT_SEND_LIMITS: SendLimits = { timeoutMs: 10_000, maxResponseBytes: 64 * 1024 };

export interface SendResult {
  ok: boolean;
  status: number | null;
  error: string | null;
}

/** Every secret in force signs: after a rotation the receiver may still hold the previous one. */
export function signatureHeader(secrets: readonly string[], id: string, at: Date, body: string): string {
  return secrets.map((s) => new Webhook(s).sign(id, at, body)).join(' ');
}

export function sendWebhook(
  target: { url: URL; address: string; family: number },
  message: { id: string; at: Date; body: string; secrets: readonly string[] },
  limits: SendLimits = DEFAULT_SEND_LIMITS,
): Promise<SendResult> {
  const lookup: LookupFunction = (_host, options, callback) => {
    if (options.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
  const client = target.url.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    const done = (r: SendResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve(r);
    };
    const req = client.request(
      target.url,
      {
        method: 'POST',
        lookup,
        agent: false,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(message.body),
          'user-agent': 'regdata-webhooks/1',
          'webhook-id': message.id,
          'webhook-timestamp': String(Math.floor(message.at.getTime() / 1000)),
          'webhook-signature': signatureHeader(message.secrets, message.id, message.at, message.body),
        },
      },
      (res) => {
        const status = res.statusCode ?? 0;
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          // Enough is known: the status decides; the rest of a large answer is not waited for.
          if (read > limits.maxResponseBytes) finish();
        });
        const finish = () =>
          done(
            status >= 200 && status < 300
              ? { ok: true, status, error: null }
              : {
                  ok: false,
                  status,
                  error: status >= 300 && status < 400 ? 'redirect not followed' : `HTTP ${status}`,
                },
          );
        res.on('end', finish);
        res.on('error', (err) => done({ ok: false, status, error: err.message }));
      },
    );
    const timer = setTimeout(
      () => done({ ok: false, status: null, error: `no answer within ${limits.timeoutMs} ms` }),
      limits.timeoutMs,
    );
    req.on('error', (err) => done({ ok: false, status: null, error: err.message }));
    req.end(message.body);
  });
}
