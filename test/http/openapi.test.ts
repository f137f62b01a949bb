import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, emptyDataDir, type TestApp } from '../helpers/app.ts';

const run = promisify(execFile);

interface Parameter {
  name: string;
  in: string;
  deprecated?: boolean;
  schema?: { type?: string };
}
interface OpenApiDoc {
  openapi: string;
  info: { version: string };
  paths: Record<string, Record<string, { parameters?: Parameter[]; responses: Record<string, unknown> }>>;
}

describe('OpenAPI document', () => {
  let t: TestApp;
  let doc: OpenApiDoc;
  const dataDir = emptyDataDir();

  beforeAll(async () => {
    // The document depends on the routes only, not on data: an empty engine is enough.
    t = await buildTestApp(dataDir);
    const res = await t.get('/api/v1/openapi.json', { key: null });
    expect(res.statusCode).toBe(200);
    doc = res.json() as OpenApiDoc;
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('is OpenAPI 3.1 with interface version 1.1.0', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.1.0');
  });

  it('documents every endpoint of spec 4.1 under /api/v1/data', () => {
    expect(Object.keys(doc.paths).sort()).toEqual(
      [
        '/api/v1/data/activities',
        '/api/v1/data/companies',
        '/api/v1/data/companies/{registrikood}',
        '/api/v1/data/companies/{registrikood}/history',
        '/api/v1/data/companies/{registrikood}/workplaces',
        '/api/v1/data/count',
        '/api/v1/data/countries',
        '/api/v1/data/filters',
        '/api/v1/data/locations',
        '/healthz',
      ].sort(),
    );
  });

  it('marks the Estonian-named aliases deprecated and the English names not', () => {
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

  it('passes the Redocly linter with zero errors', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-openapi-'));
    const file = path.join(dir, 'openapi.json');
    fs.writeFileSync(file, JSON.stringify(doc));
    try {
      const bin = path.resolve('node_modules/.bin/redocly');
      const out = await run(bin, ['lint', file, '--format=json'], {
        env: { ...process.env, REDOCLY_TELEMETRY: 'off' },
      }).catch((err: { stdout?: string; stderr?: string }) => ({
        stdout: err.stdout ?? '',
        stderr: err.stderr ?? '',
      }));
      const report = JSON.parse(out.stdout) as {
        totals: { errors: number };
        problems: { message: string; severity: string }[];
      };
      const errors = report.problems.filter((p) => p.severity === 'error').map((p) => p.message);
      expect(errors).toEqual([]);
      expect(report.totals.errors).toBe(0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('matches the committed document, so schema drift shows in review', async () => {
    await expect(`${JSON.stringify(doc, null, 2)}\n`).toMatchFileSnapshot(
      './__snapshots__/openapi.json.snap',
    );
  });

  it('serves a human docs page at /docs', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/docs/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
  });
});
