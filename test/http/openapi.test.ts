import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import createClient from 'openapi-fetch';
import openapiTS, { astToString } from 'openapi-typescript';
import * as prettier from 'prettier';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Oracle } from '../helpers/oracle.ts';
import { startRealServerWithAdmin, type RealServer } from './helpers/real-server.ts';
import type { paths } from './__generated__/openapi.d.ts';
import { pageSearch } from './fixtures/typed-client.program.ts';

const run = promisify(execFile);

/**
 * The public OpenAPI document as the real server (startServer, dashboard and MCP included) serves it:
 * the public API only, lint-clean, described, and good enough to generate a typed client that works.
 */

interface Parameter {
  name: string;
  in: string;
  deprecated?: boolean;
  schema?: { type?: string };
}
interface OpenApiDoc {
  openapi: string;
  info: { version: string };
  paths: Record<
    string,
    Record<string, { parameters?: Parameter[]; responses: Record<string, { description: string }> }>
  >;
}

const OPENAPI = '/api/v1/openapi.json';

let t: RealServer & { adminKey: string };
let doc: OpenApiDoc;
let oracle: Oracle;

beforeAll(async () => {
  // A small burst, so the typed client program below meets a 429 within a few calls (admin keys are not limited).
  t = await startRealServerWithAdmin(inject('testDataDir'), {
    REGDATA_RATE_LIMIT_BURST: '3',
    REGDATA_RATE_LIMIT_PER_MINUTE: '1',
  });
  oracle = await Oracle.open(inject('testDataDir'));
  const res = await fetch(`${t.url}${OPENAPI}`);
  expect(res.status).toBe(200);
  doc = (await res.json()) as OpenApiDoc;
});
afterAll(async () => {
  await t?.stop();
  oracle?.close();
});

describe('OpenAPI document', () => {
  it('is OpenAPI 3.1 with interface version 1.2.0', async () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.2.0');
  });

  it('describes the public API only: the nine operations of spec 4.1, those of issues 19 and 31 and /healthz', async () => {
    const account = {
      '/api/v1/account/watchlists': ['get', 'post'],
      '/api/v1/account/watchlists/{id}': ['get', 'delete'],
      '/api/v1/account/watchlists/{id}/companies': ['post'],
      '/api/v1/account/watchlists/{id}/companies/{registrikood}': ['delete'],
      '/api/v1/account/webhooks': ['get', 'post'],
      '/api/v1/account/webhooks/{id}': ['delete'],
      '/api/v1/account/webhooks/{id}/rotate-secret': ['post'],
      '/api/v1/account/webhooks/{id}/enable': ['post'],
      '/api/v1/account/webhooks/{id}/deliveries': ['get'],
      '/api/v1/account/webhooks/{id}/deliveries/{delivery}/replay': ['post'],
    } as Record<string, string[]>;
    expect(Object.keys(doc.paths).sort()).toEqual(
      [
        ...Object.keys(account),
        '/api/v1/data/activities',
        '/api/v1/data/changes',
        '/api/v1/data/events',
        '/api/v1/data/companies',
        '/api/v1/data/companies/export',
        '/api/v1/data/companies/{registrikood}',
        '/api/v1/data/companies/{registrikood}/history',
        '/api/v1/data/companies/{registrikood}/workplaces',
        '/api/v1/data/count',
        '/api/v1/data/countries',
        '/api/v1/data/estimate',
        '/api/v1/data/filters',
        '/api/v1/data/locations',
        '/healthz',
      ].sort(),
    );
    // The data API is read-only (spec); managing watchlists is account management, like keys.
    for (const [p, item] of Object.entries(doc.paths)) {
      expect(Object.keys(item).sort(), p).toEqual((account[p] ?? ['get']).sort());
    }
  });

  it('gives every response a real description and no integer the ±2^53 bounds zod adds', async () => {
    const text = JSON.stringify(doc);
    expect(text).not.toContain('Default Response');
    expect(text).not.toContain(String(Number.MAX_SAFE_INTEGER));
    for (const [p, item] of Object.entries(doc.paths)) {
      for (const operation of Object.values(item)) {
        for (const [status, response] of Object.entries(operation.responses)) {
          expect(response.description.length, `${p} ${status}`).toBeGreaterThan(5);
        }
      }
    }
  });

  it('marks the Estonian-named aliases deprecated and the English names not', async () => {
    const params = doc.paths['/api/v1/data/companies']!['get']!.parameters!;
    const byName = new Map(params.map((p) => [p.name, p]));
    for (const alias of [
      'arinimi',
      'registrikood',
      'emtak_codes',
      'oiguslik_vorm',
      'staatus',
      'kapital_min',
      'kapital_max',
      'esmaregistreerimise_from',
      'esmaregistreerimise_to',
    ]) {
      expect(byName.get(alias)?.deprecated, alias).toBe(true);
    }
    for (const english of [
      'company_name',
      'registration_code',
      'industry_codes',
      'status',
      'share_capital_min',
    ]) {
      expect(byName.get(english)?.deprecated, english).toBeUndefined();
    }
    expect(byName.get('has_email')?.schema?.type).toBe('boolean');
    expect(byName.get('industry_codes')?.schema?.type).toBe('array');
  });

  it('passes the Redocly linter (recommended-strict and the generator rules of redocly.yaml) with zero problems', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-openapi-'));
    const file = path.join(dir, 'openapi.json');
    fs.writeFileSync(file, JSON.stringify(doc));
    try {
      const bin = path.resolve('node_modules/.bin/redocly');
      const out = await run(
        bin,
        ['lint', file, '--format=json', `--config=${path.resolve('redocly.yaml')}`],
        {
          env: { ...process.env, REDOCLY_TELEMETRY: 'off' },
        },
      ).catch((err: { stdout?: string; stderr?: string }) => ({
        stdout: err.stdout ?? '',
        stderr: err.stderr ?? '',
      }));
      const report = JSON.parse(out.stdout) as {
        totals: { errors: number; warnings: number };
        problems: {
          ruleId: string;
          message: string;
          severity: string;
          location: { pointer: string }[];
        }[];
      };
      expect(
        report.problems.map(
          (p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? '?'}`,
        ),
      ).toEqual([]);
      expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('matches the committed document, so schema drift shows in review', async () => {
    await expect(`${JSON.stringify(doc, null, 2)}\n`).toMatchFileSnapshot(
      './__snapshots__/openapi.json.snap',
    );
  });

  it('/docs renders exactly this document: the page loads it from its own address', async () => {
    const page = await fetch(`${t.url}/docs/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const init = await (await fetch(`${t.url}/docs/static/swagger-initializer.js`)).text();
    // The address the UI resolves its document from, relative to /docs/.
    const relative = /url: resolveUrl\('([^']+)'\)/.exec(init)?.[1];
    expect(relative).toBeTruthy();
    const res = await fetch(new URL(relative!, `${t.url}/docs/`));
    expect(res.status).toBe(200);
    expect(new URL(res.url).pathname).toBe(OPENAPI);
    expect(await res.json()).toEqual(doc);
  });
});

describe('a typed client generated from the document', () => {
  it('is generated by openapi-typescript as committed, and openapi-fetch calls the API with it', async () => {
    const generated = astToString(await openapiTS(doc as unknown as Parameters<typeof openapiTS>[0]));
    const options = (await prettier.resolveConfig(path.resolve('package.json'))) ?? {};
    const formatted = await prettier.format(generated, { ...options, parser: 'typescript' });
    // The client below is type-checked against this file by `tsc --noEmit`.
    await expect(formatted).toMatchFileSnapshot('./__generated__/openapi.d.ts');

    const client = createClient<paths>({
      baseUrl: t.url,
      headers: { authorization: `Bearer ${t.adminKey}` },
    });

    const count = await client.GET('/api/v1/data/count', {
      params: { query: { country: 'EE', status: ['__all__'] } },
    });
    expect(count.error).toBeUndefined();
    const all = await oracle.scalar<bigint | number>(
      `SELECT count(*) FROM ${oracle.file('EE', 'companies')} WHERE NOT not_for_sale`,
    );
    expect(count.data?.count).toBe(Number(all));

    const page = await client.GET('/api/v1/data/companies', {
      params: { query: { country: 'EE', page_size: 2, sort_by: 'registration_code' } },
    });
    expect(page.error).toBeUndefined();
    const first = page.data!.data.items[0]!;
    expect(page.data!.meta.rows_returned).toBe(2);

    const detail = await client.GET('/api/v1/data/companies/{registrikood}', {
      params: { path: { registrikood: first.registrikood }, query: { country: 'EE' } },
    });
    expect(detail.data?.data.registrikood).toBe(first.registrikood);
    expect(detail.data?.data.arinimi).toBe(first.arinimi);

    // Errors come back typed as the document's error responses.
    const missing = await client.GET('/api/v1/data/count', {
      params: { query: { country: 'EE', employees_band: [1] } },
    });
    expect(missing.response.status).toBe(422);
    const issues = missing.error?.detail;
    expect(Array.isArray(issues) ? issues[0]?.type : issues).toBe('filter_not_available');
  });
});

describe('a customer program written against the generated client', () => {
  const program = path.resolve('test/http/fixtures/typed-client.program.ts');
  const standardKey = async (email: string, credits: number) =>
    (await t.wallet.createKey({ email, kind: 'standard', plan: 'payg', credits })).key;

  it('compiles with tsc --strict on its own, against the generated types only', async () => {
    const tsc = path.resolve('node_modules/.bin/tsc');
    const args = ['--strict', '--noEmit', '--module', 'nodenext', '--moduleResolution', 'nodenext'];
    args.push('--target', 'es2022', '--lib', 'es2023', '--types', 'node', '--skipLibCheck');
    args.push('--allowImportingTsExtensions', program);
    const out = await run(tsc, args).catch((err: { stdout?: string }) => ({
      stdout: err.stdout ?? 'failed',
    }));
    expect(out.stdout).toBe('');
  });

  it('pages a search and reads Data-As-Of and the remaining rate limit from the declared headers', async () => {
    const key = await standardKey('pager@test.local', 1000);
    const paged = await pageSearch(
      t.url,
      key,
      { country: 'EE', page_size: 2, sort_by: 'registration_code' },
      2,
      'pager',
    );
    expect(paged.failure).toBeNull();
    // Active companies (the default status) in code order, computed from the snapshot's Parquet.
    const expected = await oracle.matching('EE', `staatus = 'R'`, [], 4);
    expect(paged.rows.map((r) => r.registrikood)).toEqual(expected.codes);
    const countries = await fetch(`${t.url}/api/v1/data/countries`, {
      headers: { authorization: `Bearer ${t.adminKey}` },
    });
    const ee = ((await countries.json()) as { countries: { code: string; as_of: string }[] }).countries.find(
      (c) => c.code === 'EE',
    );
    expect(paged.dataAsOf).toBe(ee?.as_of);
    // Two calls of a burst of three: one left (the refill is one a minute).
    expect(paged.rateLimitRemaining).toBe(1);
  });

  it('gets 402, 422 and 429 back as typed failures', async () => {
    const broke = await pageSearch(t.url, await standardKey('broke@test.local', 0), { country: 'EE' }, 1);
    expect(broke.failure?.status).toBe(402);
    expect(broke.failure?.body).toMatchObject({ detail: expect.stringContaining('credit') });

    const invalid = await pageSearch(
      t.url,
      await standardKey('invalid@test.local', 1000),
      { country: 'EE', employees_band: [1] },
      1,
    );
    expect(invalid.failure?.status).toBe(422);
    const issues = (invalid.failure?.body as { detail: { type: string }[] }).detail;
    expect(issues.map((i) => i.type)).toEqual(['filter_not_available']);

    const busy = await pageSearch(
      t.url,
      await standardKey('busy@test.local', 1000),
      { country: 'EE', page_size: 1 },
      10,
    );
    expect(busy.rows).toHaveLength(3);
    expect(busy.failure).toMatchObject({ status: 429 });
    expect(
      busy.failure && 'retryAfterSeconds' in busy.failure && busy.failure.retryAfterSeconds,
    ).toBeGreaterThan(0);
    expect(busy.rateLimitRemaining).toBe(0);
  });
});
