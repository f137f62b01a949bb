/** Exit codes (knip-style): 0 ok, 1 the data or the run failed, 2 usage or configuration error. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

export class UsageError extends Error {
  override readonly name = 'UsageError';
}
