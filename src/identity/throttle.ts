/**
 * Sliding-window counters in memory, for the e-mail throttles: enough for the one server process (a restart
 * forgets them, which costs at most one more window of mail). The number of keys is bounded, so a client
 * inventing addresses cannot grow it without limit; the least recently used key is dropped first.
 */
export interface WindowLimit {
  key: string;
  limit: number;
  windowMs: number;
}

export class SlidingWindow {
  private readonly hits = new Map<string, number[]>();

  constructor(private readonly maxKeys = 50_000) {}

  /**
   * Counts one hit against every limit when all of them have room, and returns 0; otherwise counts nothing
   * and returns the seconds until the fullest one has room again.
   */
  take(limits: readonly WindowLimit[], now: number): number {
    let wait = 0;
    const windows = limits.map(({ key, limit, windowMs }) => {
      const recent = (this.hits.get(key) ?? []).filter((t) => t > now - windowMs);
      if (recent.length >= limit) {
        wait = Math.max(wait, Math.ceil(((recent[recent.length - limit] ?? now) + windowMs - now) / 1000));
      }
      return { key, recent };
    });
    for (const { key, recent } of windows) {
      if (wait === 0) recent.push(now);
      // Re-inserted last: the map's order is the order of last use.
      this.hits.delete(key);
      if (recent.length > 0) this.hits.set(key, recent);
    }
    while (this.hits.size > this.maxKeys) {
      const oldest = this.hits.keys().next().value;
      if (oldest === undefined) break;
      this.hits.delete(oldest);
    }
    return wait === 0 ? 0 : Math.max(1, wait);
  }
}
