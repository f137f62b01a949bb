import { parseArgs } from 'node:util';
import type { Config } from '../../config.ts';
import { walletOptions } from '../../wallet/from-config.ts';
import { openWallet, type Wallet } from '../../wallet/wallet.ts';
import { EXIT, UsageError } from '../errors.ts';
import { out } from '../output.ts';

/**
 * Operator commands on the wallet (data/wallet.db under REGDATA_DATA_DIR, the same file the server opens).
 * Each prints a short human text, or with --json one JSON document for scripts.
 */

export const keysHelp = `regdata keys create --email <e> --kind standard|admin [--credits <n>] [--plan payg|trial|unlimited] [--name <s>] [--json]
regdata keys revoke (--key-id <id> | --key <secret>) [--json]
regdata keys list --email <e> [--json]

create: creates the account if new and a key; the secret is printed this once and stored only as a hash.
  --credits grants non-expiring top-up credit (at least 20); --plan sets the account's plan
  (trial: 7 days unmetered; unlimited: never charged).`;

export const creditsHelp = `regdata credits add --email <e> --amount <n> [--json]
regdata credits show --email <e> [--json]

add: a top-up of non-expiring credit (at least 20 credits).
show: balance, pending holds, credit lots with expiry, plan and subscriptions.`;

export const subscriptionsHelp = `regdata subscriptions add --email <e> --country <CC> [--json]
regdata subscriptions remove --email <e> --country <CC> [--json]

A per-country subscription waives metering for that country only.`;

export const usageHelp = `regdata usage --email <e> [--since YYYY-MM-DD] [--limit <n>] [--json]

Requests, rows and credits per operation and country, then the latest usage records.`;

async function withWallet<T>(config: Config, fn: (wallet: Wallet) => Promise<T>): Promise<T> {
  // No periodic sweep in a short-lived CLI process; the start-up sweep still runs.
  const wallet = await openWallet(walletOptions(config, { sweepIntervalMs: 0 }));
  try {
    return await fn(wallet);
  } finally {
    await wallet.close();
  }
}

function required(value: string | undefined, flag: string): string {
  if (value === undefined || value === '') throw new UsageError(`${flag} is required`);
  return value;
}

function amount(value: string | undefined, flag: string): number {
  const n = Number(required(value, flag));
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`${flag} must be a positive number`);
  return n;
}

export async function keysCommand(args: string[], config: Config): Promise<number> {
  const [sub, ...rest] = args;
  const { values } = parseArgs({
    args: rest,
    options: {
      email: { type: 'string' },
      kind: { type: 'string' },
      credits: { type: 'string' },
      plan: { type: 'string' },
      name: { type: 'string' },
      'key-id': { type: 'string' },
      key: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  if (sub === 'create') {
    const kind = required(values.kind, '--kind');
    if (kind !== 'standard' && kind !== 'admin') throw new UsageError('--kind must be standard or admin');
    const plan = values.plan;
    if (plan !== undefined && plan !== 'payg' && plan !== 'trial' && plan !== 'unlimited') {
      throw new UsageError('--plan must be payg, trial or unlimited');
    }
    const created = await withWallet(config, (w) =>
      w.createKey({
        email: required(values.email, '--email'),
        kind,
        ...(values.credits !== undefined ? { credits: amount(values.credits, '--credits') } : {}),
        ...(plan !== undefined ? { plan } : {}),
        ...(values.name !== undefined ? { name: values.name } : {}),
      }),
    );
    if (values.json) {
      out.json({
        key: created.key,
        account: created.accountId,
        kind: created.kind,
        key_id: created.keyId,
        email: created.email,
        plan: created.plan,
        account_created: created.accountCreated,
        balance: created.balance,
      });
    } else {
      out.line(created.key);
      out.info(
        `key ${created.keyId} (${created.kind}) for ${created.email}` +
          `${created.accountCreated ? ' (new account)' : ''}, plan ${created.plan}, balance ${created.balance.toFixed(2)} credits.` +
          '\nThe key is shown this once; store it now.',
      );
    }
    return EXIT.ok;
  }
  if (sub === 'revoke') {
    const ref = values['key-id'] ? { keyId: values['key-id'] } : values.key ? { key: values.key } : null;
    if (!ref) throw new UsageError('--key-id or --key is required');
    const r = await withWallet(config, (w) => w.revokeKey(ref));
    if (values.json) out.json(r);
    else
      out.info(
        r.alreadyRevoked ? `key ${r.keyId} was already revoked` : `key ${r.keyId} revoked at ${r.revokedAt}`,
      );
    return EXIT.ok;
  }
  if (sub === 'list') {
    const keys = await withWallet(config, (w) => w.listKeys({ email: required(values.email, '--email') }));
    if (values.json) out.json(keys);
    else out.table(keys.map((k) => ({ ...k }) as unknown as Record<string, string | number | null>));
    return EXIT.ok;
  }
  throw new UsageError(`unknown subcommand: keys ${sub ?? ''}\n\n${keysHelp}`);
}

export async function creditsCommand(args: string[], config: Config): Promise<number> {
  const [sub, ...rest] = args;
  const { values } = parseArgs({
    args: rest,
    options: {
      email: { type: 'string' },
      amount: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const email = required(values.email, '--email');
  if (sub === 'add') {
    const r = await withWallet(config, (w) =>
      w.addCredits({ email, amount: amount(values.amount, '--amount') }),
    );
    if (values.json) out.json(r);
    else out.info(`added ${r.amount.toFixed(2)} credits to ${email}; balance ${r.balance.toFixed(2)}`);
    return EXIT.ok;
  }
  if (sub === 'show') {
    const r = await withWallet(config, (w) => w.balance({ email }));
    if (values.json) out.json(r);
    else {
      out.line(
        `${r.email}: balance ${r.balance.toFixed(2)} credits, pending ${r.pending.toFixed(2)}, plan ${r.plan}`,
      );
      if (r.trialEndsAt) out.line(`trial ends ${r.trialEndsAt}`);
      out.table(r.lots.map((l) => ({ ...l }) as unknown as Record<string, string | number | null>));
    }
    return EXIT.ok;
  }
  throw new UsageError(`unknown subcommand: credits ${sub ?? ''}\n\n${creditsHelp}`);
}

export async function subscriptionsCommand(args: string[], config: Config): Promise<number> {
  const [sub, ...rest] = args;
  const { values } = parseArgs({
    args: rest,
    options: {
      email: { type: 'string' },
      country: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const email = required(values.email, '--email');
  const country = required(values.country, '--country').toUpperCase();
  if (sub === 'add') {
    const r = await withWallet(config, (w) => w.addSubscription({ email, country }));
    if (values.json) out.json(r);
    else out.info(`${email} now subscribes to ${r.country} (metering waived) from ${r.startedAt}`);
    return EXIT.ok;
  }
  if (sub === 'remove') {
    const r = await withWallet(config, (w) => w.removeSubscription({ email, country }));
    if (values.json) out.json(r);
    else
      out.info(
        r.ended
          ? `${email}: subscription to ${r.country} ended`
          : `${email} had no subscription to ${r.country}`,
      );
    return EXIT.ok;
  }
  throw new UsageError(`unknown subcommand: subscriptions ${sub ?? ''}\n\n${subscriptionsHelp}`);
}

export async function usageCommand(args: string[], config: Config): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      email: { type: 'string' },
      since: { type: 'string' },
      limit: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const email = required(values.email, '--email');
  let since: Date | undefined;
  if (values.since !== undefined) {
    since = new Date(`${values.since}T00:00:00Z`);
    if (Number.isNaN(since.getTime())) throw new UsageError('--since must be a date YYYY-MM-DD');
  }
  const limit = values.limit === undefined ? 20 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 0) throw new UsageError('--limit must be a non-negative integer');
  const r = await withWallet(config, (w) => w.usage({ email, limit, ...(since ? { since } : {}) }));
  if (values.json) {
    out.json(r);
    return EXIT.ok;
  }
  out.line(
    `${r.email} ${r.from} .. ${r.to}: ${r.totals.requests} requests, ${r.totals.rows} rows, ${r.totals.credits.toFixed(2)} credits`,
  );
  out.table(r.byOperation.map((o) => ({ ...o, credits: o.credits.toFixed(2) })));
  return EXIT.ok;
}
