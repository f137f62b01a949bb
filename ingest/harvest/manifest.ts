import fs from 'node:fs';
import path from 'node:path';

/** What one service's harvest run did, as recorded in `harvest-manifest.json`. */
export interface ManifestRun {
  service: string;
  run: string;
  mode: 'full' | 'incremental';
  started_at: string;
  finished_at: string | null;
  /** `complete`, `interrupted` (stopped by a signal or an error; the state file resumes it) or `failed`. */
  outcome: 'complete' | 'interrupted' | 'failed';
  requests: number;
  retries: number;
  /** Answers stored, by kind and HTTP status (e.g. `OdpisAktualny 200`, `OdpisAktualny 404`). */
  answers: Record<string, number>;
  files: string[];
  error?: string;
  /** Service-specific notes (the KRS range swept, the BIR data date, ...). */
  detail?: Record<string, unknown>;
}

export const MANIFEST_FILE = 'harvest-manifest.json';

/**
 * The folder's manifest: every run of every service, oldest first, with what was fetched and when. It is
 * rewritten atomically at each checkpoint, so a killed run is listed with what it had stored so far.
 */
export class HarvestManifest {
  private runs: ManifestRun[];
  private readonly file: string;

  constructor(dir: string) {
    this.file = path.join(dir, MANIFEST_FILE);
    try {
      this.runs = (JSON.parse(fs.readFileSync(this.file, 'utf8')) as { runs: ManifestRun[] }).runs;
    } catch {
      this.runs = [];
    }
  }

  all(): readonly ManifestRun[] {
    return this.runs;
  }

  /** The last complete run of a service, for incremental mode. */
  lastComplete(service: string): ManifestRun | null {
    return [...this.runs].reverse().find((r) => r.service === service && r.outcome === 'complete') ?? null;
  }

  begin(run: Omit<ManifestRun, 'finished_at' | 'outcome' | 'requests' | 'retries' | 'answers' | 'files'>) {
    const entry: ManifestRun = {
      ...run,
      finished_at: null,
      outcome: 'interrupted',
      requests: 0,
      retries: 0,
      answers: {},
      files: [],
    };
    this.runs.push(entry);
    this.save();
    return entry;
  }

  save(): void {
    fs.mkdirSync(path.dirname(this.file), { recursive: true });
    const tmp = `${this.file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, `${JSON.stringify({ runs: this.runs }, null, 2)}\n`);
    fs.renameSync(tmp, this.file);
  }
}
