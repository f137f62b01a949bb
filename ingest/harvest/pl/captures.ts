import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import type { CaptureRecord } from '../capture.ts';

/** Every capture file of a family in a harvest folder, oldest run first. */
export function captureFiles(dir: string, prefix: string): string[] {
  if (!fs.existsSync(dir)) return [];
  const re = new RegExp(`^${prefix}_\\d{8}T\\d{6}Z_\\d{4}\\.jsonl$`);
  return fs
    .readdirSync(dir)
    .filter((n) => re.test(n))
    .sort()
    .map((n) => path.join(dir, n));
}

/** The stored answers of a family, line by line; a cut last line (a killed harvest) is skipped. */
export async function* readCaptures(dir: string, prefix: string): AsyncGenerator<CaptureRecord> {
  for (const file of captureFiles(dir, prefix)) {
    const lines = readline.createInterface({ input: fs.createReadStream(file), crlfDelay: Infinity });
    for await (const line of lines) {
      if (!line.trim()) continue;
      try {
        yield JSON.parse(line) as CaptureRecord;
      } catch {
        // Only the last line of a file can be cut; the ingest reports it.
      }
    }
  }
}
