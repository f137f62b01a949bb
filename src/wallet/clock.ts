/** Milliseconds since the epoch. Every timestamp in wallet.db is one of these, from the injected clock. */
export type Clock = () => number;

export const DAY_MS = 86_400_000;

export function toIso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}
