import Fastify from 'fastify';
import { validatorCompiler } from 'fastify-type-provider-zod';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { responseSerializer, SAMPLE_EVERY, type ResponseChecks } from '../../src/http/response-serializer.ts';

/**
 * The serializer sends JSON.stringify of the data, and holds it to the route's zod schema: each response
 * (`every`) or one in SAMPLE_EVERY (`sampled`). A schema that would change the bytes (a stripped key) or
 * that the data breaks is a 500 whenever the response is checked.
 */
async function appWith(checks: ResponseChecks, data: () => unknown) {
  const app = Fastify();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(responseSerializer(checks));
  app.get(
    '/x',
    { schema: { response: { 200: z.object({ a: z.number(), b: z.string().nullable() }) } } },
    async () => data(),
  );
  await app.ready();
  return app;
}

describe('responseSerializer', () => {
  it('sends the data as JSON.stringify writes it when it fits the schema', async () => {
    const app = await appWith('every', () => ({ a: 1, b: 'ü"\n' }));
    const res = await app.inject('/x');
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe(JSON.stringify({ a: 1, b: 'ü"\n' }));
    await app.close();
  });

  it('every: a key the schema would strip, or a wrong type, is a 500 on each response', async () => {
    let n = 0;
    const app = await appWith('every', () =>
      n++ % 2 === 0 ? { a: 1, b: null, secret: 'x' } : { a: 'one', b: null },
    );
    for (let i = 0; i < 4; i++) {
      const res = await app.inject('/x');
      expect(res.statusCode).toBe(500);
      expect(res.body).not.toContain('secret');
    }
    await app.close();
  });

  it(`sampled: checks the first response of a route and then one in ${SAMPLE_EVERY}`, async () => {
    const app = await appWith('sampled', () => ({ a: 1, b: null, extra: true }));
    const statuses: number[] = [];
    for (let i = 0; i < SAMPLE_EVERY + 2; i++) statuses.push((await app.inject('/x')).statusCode);
    const failed = statuses.flatMap((s, i) => (s === 500 ? [i] : []));
    expect(failed).toEqual([0, SAMPLE_EVERY]);
    await app.close();
  });
});
