import { DuckDBInstance } from '@duckdb/node-api';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectionPool } from '../../src/engine/connection-pool.ts';
import { QUERY_PRIORITY } from '../../src/engine/loaded-snapshot.ts';
import { AppError, isAppError } from '../../src/errors/app-error.ts';
import { installErrorHandlers } from '../../src/http/error-handler.ts';

/** Scheduled scans: the pool runs cheap work first and turns away what waited too long. */
let instance: DuckDBInstance;

beforeAll(async () => {
  instance = await DuckDBInstance.create(':memory:', { threads: '1' });
});
afterAll(() => instance.closeSync());

const overloaded = () => new AppError('overloaded', 'the service is busy; retry shortly');
/** Long enough to still run while the others queue behind it (hundreds of ms even unloaded). */
const SLOW = 'SELECT sum(i * i)::DOUBLE AS s FROM range(100000000) t(i)';

describe('connection pool scheduling', () => {
  it('gives a free connection to the cheapest waiter first, in arrival order within a priority', async () => {
    const pool = await ConnectionPool.open(instance, 1, overloaded);
    try {
      const done: string[] = [];
      const run = (name: string, priority: number) =>
        pool.query(`SELECT ? AS n`, [name], { priority }).then(() => done.push(name));
      // The first takes the only connection; the rest queue in this order.
      await Promise.all([
        run('first', QUERY_PRIORITY.scan),
        run('scan-1', QUERY_PRIORITY.scan),
        run('narrowed-1', QUERY_PRIORITY.narrowed),
        run('scan-2', QUERY_PRIORITY.scan),
        run('narrowed-2', QUERY_PRIORITY.narrowed),
      ]);
      expect(done).toEqual(['first', 'narrowed-1', 'narrowed-2', 'scan-1', 'scan-2']);
    } finally {
      pool.close();
    }
  });

  it('turns away a query that waited longer than its limit, and keeps serving the others', async () => {
    const pool = await ConnectionPool.open(instance, 1, overloaded);
    try {
      const slow = pool.query(SLOW);
      const waited = pool.query('SELECT 1 AS n', [], { maxWaitMs: 20 }).catch((err: unknown) => err);
      const patient = pool.query('SELECT 2 AS n');
      const err = await waited;
      expect(isAppError(err) && err.code).toBe('overloaded');
      expect(pool.queued).toBe(1);
      await slow;
      expect(await patient).toEqual([{ n: 2 }]);
      expect(pool.queued).toBe(0);
    } finally {
      pool.close();
    }
  });

  it('answers an overloaded engine with 503 and Retry-After, never a timeout', async () => {
    const app = Fastify();
    installErrorHandlers(app);
    app.get('/busy', () => {
      throw overloaded();
    });
    try {
      const res = await app.inject({ method: 'GET', url: '/busy' });
      expect(res.statusCode).toBe(503);
      expect(res.headers['retry-after']).toBe('1');
      expect(res.json()).toEqual({
        detail: 'the service is busy; retry after the seconds in Retry-After; nothing was charged',
      });
    } finally {
      await app.close();
    }
  });
});
