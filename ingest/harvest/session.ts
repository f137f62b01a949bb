import { CaptureWriter, captureOf, runId } from './capture.ts';
import { HarvestHttp, type HttpAnswer, type HttpOptions } from './http.ts';
import type { HarvestManifest } from './manifest.ts';
import { type ManifestRun } from './manifest.ts';
import { HarvestState } from './state.ts';
import path from 'node:path';

export interface HarvestLog {
  info(msg: string): void;
}

/**
 * What one service's harvest works with: a paced HTTP client, its capture files, its state file and its
 * manifest entry. `store()` records an answer and counts it; `checkpoint()` makes the captures durable, then
 * moves the state forward and updates the manifest, in that order, so a resumed run never skips an answer
 * that was not stored (it may at most store one twice; the ingest keeps the newest per key).
 */
export class HarvestSession<S extends object> {
  readonly http: HarvestHttp;
  readonly state: HarvestState<S>;
  readonly entry: ManifestRun;
  private readonly writers = new Map<string, CaptureWriter>();

  constructor(
    readonly dir: string,
    readonly service: string,
    readonly manifest: HarvestManifest,
    initialState: S,
    http: HttpOptions,
    readonly log: HarvestLog,
    opts: { now: Date; mode: 'full' | 'incremental'; detail?: Record<string, unknown> },
  ) {
    this.http = new HarvestHttp({
      ...http,
      onRetry: (url, attempt, reason, wait) =>
        log.info(`${service}: ${reason} from ${url}; attempt ${attempt} in ${(wait / 1000).toFixed(1)} s`),
    });
    this.state = new HarvestState(path.join(dir, '.harvest', `${service}.state.json`), initialState);
    this.entry = manifest.begin({
      service,
      run: runId(opts.now),
      mode: opts.mode,
      started_at: opts.now.toISOString(),
      ...(opts.detail ? { detail: opts.detail } : {}),
    });
  }

  /** The capture file family `<prefix>_<run>_NNNN.jsonl`. */
  writer(prefix: string): CaptureWriter {
    let w = this.writers.get(prefix);
    if (!w) {
      w = new CaptureWriter(this.dir, prefix, this.entry.run);
      this.writers.set(prefix, w);
    }
    return w;
  }

  store(prefix: string, answer: HttpAnswer, key: string, kind: string, action?: string): void {
    this.writer(prefix).write(captureOf(answer, key, kind, action));
    const label = `${kind} ${answer.status}`;
    this.entry.answers[label] = (this.entry.answers[label] ?? 0) + 1;
  }

  checkpoint(state: Partial<S>): void {
    for (const w of this.writers.values()) w.sync();
    this.state.save(state);
    this.syncManifest();
  }

  private syncManifest(): void {
    this.entry.requests = this.http.requests.sent;
    this.entry.retries = this.http.requests.retried;
    this.entry.files = [...new Set([...this.writers.values()].flatMap((w) => w.files))];
    this.manifest.save();
  }

  finish(outcome: ManifestRun['outcome'], error?: unknown): void {
    for (const w of this.writers.values()) w.close();
    this.entry.outcome = outcome;
    this.entry.finished_at = new Date().toISOString();
    if (error !== undefined) this.entry.error = error instanceof Error ? error.message : String(error);
    this.syncManifest();
  }
}
