import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FormOnce } from '../../src/web/form-once.ts';

/** The single-use order tokens: one spend per token, only by its account, only before it expires. */
describe('FormOnce', () => {
  it('lets exactly one of any number of spends of a token through, whatever the order of tokens', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }),
        fc.array(fc.nat({ max: 4 }), { minLength: 1, maxLength: 40 }),
        (tokens, spends) => {
          const once = new FormOnce();
          const issued = Array.from({ length: tokens }, () => once.issue('acc_1'));
          const through = new Map<string, number>();
          for (const i of spends) {
            const token = issued[i % tokens]!;
            if (once.spend(token, 'acc_1').state === 'spent')
              through.set(token, (through.get(token) ?? 0) + 1);
          }
          // Independent count: each distinct token that was spent at all got through exactly once.
          const distinct = new Set(spends.map((i) => issued[i % tokens]));
          expect([...through.values()].every((n) => n === 1)).toBe(true);
          expect(through.size).toBe(distinct.size);
        },
      ),
    );
  });

  it('answers a repeat with what the first spend recorded', () => {
    const once = new FormOnce();
    const t = once.issue('acc_1');
    expect(once.spend(t, 'acc_1')).toEqual({ state: 'spent' });
    expect(once.spend(t, 'acc_1')).toEqual({ state: 'used', outcome: null });
    once.record(t, 'Order ord_1 placed.');
    expect(once.spend(t, 'acc_1')).toEqual({ state: 'used', outcome: 'Order ord_1 placed.' });
  });

  it("refuses another account's token, an unknown one and an expired one", () => {
    let now = 1_000_000;
    const once = new FormOnce(() => now);
    const t = once.issue('acc_1');
    expect(once.spend(t, 'acc_2').state).toBe('unknown');
    expect(once.spend('made-up', 'acc_1').state).toBe('unknown');
    now += 60 * 60 * 1000;
    expect(once.spend(t, 'acc_1').state).toBe('unknown');
  });

  it('forgets expired tokens when issuing, so memory does not grow with time', () => {
    let now = 0;
    const once = new FormOnce(() => now);
    for (let i = 0; i < 100; i++) once.issue('acc_1');
    now += 60 * 60 * 1000 + 1;
    once.issue('acc_1');
    expect(once.size).toBe(1);
  });
});
