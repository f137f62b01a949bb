import Fastify from 'fastify';
import { validatorCompiler } from 'fastify-type-provider-zod';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createPageArena,
  PAGE_HEAD,
  PAGE_TAIL,
  PageArenaWriter,
  PageBytes,
  pageOfBody,
} from '../../src/engine/page-arena.ts';
import { releaseWhenSent, responseSerializer } from '../../src/http/response-serializer.ts';
import { stringifyEnvelope, withRawItems } from '../../src/services/raw-items.ts';

const held = (states: Int32Array) => states.filter((s) => s !== 0).length;
const rowsOf = (i: number) => [{ registrikood: String(i), arinimi: `Ääsmäe ${'€'.repeat(i % 7)} "${i}"` }];

describe('page arena', () => {
  it('holds a page until it is given back, and a second or stale give-back frees nothing', () => {
    const arena = createPageArena(2, PAGE_HEAD + PAGE_TAIL + 256);
    const writer = new PageArenaWriter(arena);
    const a = new PageBytes(arena, writer.write(JSON.stringify(rowsOf(1)))!);
    const b = new PageBytes(arena, writer.write(JSON.stringify(rowsOf(2)))!);
    expect(writer.write('[]')).toBeNull(); // both slots taken
    expect(JSON.parse(a.text())).toEqual(rowsOf(1));
    a.release();
    const c = new PageBytes(arena, writer.write(JSON.stringify(rowsOf(3)))!);
    expect(c.page.slot).toBe(a.page.slot);
    a.release(); // already given back: must not free c's slot
    expect(held(arena.states)).toBe(2);
    expect(JSON.parse(c.text())).toEqual(rowsOf(3));
    expect(() => a.text()).toThrow(/after release/);
    b.release();
    c.release();
    expect(held(arena.states)).toBe(0);
  });

  it('refuses a page larger than a slot (the pool then sends it as a string)', () => {
    const arena = createPageArena(1, PAGE_HEAD + PAGE_TAIL + 64);
    const writer = new PageArenaWriter(arena);
    expect(writer.write(JSON.stringify('x'.repeat(63)))).toBeNull();
    expect(writer.write(JSON.stringify('x'.repeat(60)))).not.toBeNull();
  });

  it('keeps a framed slot through a release until it was sent', () => {
    const arena = createPageArena(1, 64 * 1024);
    const p = new PageBytes(arena, new PageArenaWriter(arena).write(JSON.stringify(rowsOf(4)))!);
    const body = p.framed('{"data":{"items":', ',"page":1}}')!;
    expect(JSON.parse(body.toString('utf8'))).toEqual({ data: { items: rowsOf(4), page: 1 } });
    expect(pageOfBody(body)).toBe(p);
    p.release(); // the items were parsed meanwhile (a checked response): the socket still needs the bytes
    expect(held(arena.states)).toBe(1);
    p.sent();
    expect(held(arena.states)).toBe(0);
  });

  it('over a real socket: the answers are the envelope JSON.stringify writes, and every slot comes back', async () => {
    const arena = createPageArena(4, 64 * 1024);
    const writer = new PageArenaWriter(arena);
    const app = Fastify();
    app.setValidatorCompiler(validatorCompiler);
    // `every`: each answer is also encoded through its schema, which reads the items (and so releases
    // them) while the framed body still has to go out.
    app.setSerializerCompiler(responseSerializer('every'));
    app.addHook('onSend', (_req, reply, payload, done) => {
      releaseWhenSent(reply.raw, payload);
      done(null, payload);
    });
    const Row = z.object({ registrikood: z.string(), arinimi: z.string() });
    const Page = z.object({ items: z.array(Row), page: z.number(), total: z.number() });
    app.get(
      '/p/:i',
      { schema: { response: { 200: z.object({ data: Page, meta: z.object({ n: z.number() }) }) } } },
      async (req) => {
        const i = Number((req.params as { i: string }).i);
        const slot = writer.write(JSON.stringify(rowsOf(i)));
        expect(slot).not.toBeNull();
        const data = withRawItems<z.infer<typeof Page>>(new PageBytes(arena, slot!), 1, {
          page: 1,
          total: i,
        });
        return { data, meta: { n: i } };
      },
    );
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    try {
      // Four slots, 40 answers one after the other: only slots given back after each answer let it pass.
      for (let i = 0; i < 40; i++) {
        const res = await fetch(`${url}/p/${i}`);
        expect(await res.text()).toBe(
          JSON.stringify({ data: { items: rowsOf(i), page: 1, total: i }, meta: { n: i } }),
        );
      }
      expect(held(arena.states)).toBe(0);
    } finally {
      await app.close();
    }
  });

  it('writes a page too large for its slot margins as text, and gives the slot back', () => {
    const arena = createPageArena(1, PAGE_HEAD + PAGE_TAIL + 1024);
    const p = new PageBytes(arena, new PageArenaWriter(arena).write(JSON.stringify(rowsOf(5)))!);
    const page = withRawItems<{ items: unknown[]; note: string }>(p, 1, {
      note: 'n'.repeat(PAGE_TAIL + 2048),
    });
    const body = stringifyEnvelope({ data: page });
    expect(body).toBe(JSON.stringify({ data: { items: rowsOf(5), note: 'n'.repeat(PAGE_TAIL + 2048) } }));
    expect(held(arena.states)).toBe(0);
  });
});
