import fs from 'node:fs';
import path from 'node:path';
import type { CountryCode } from '../../src/contract/countries.ts';
import { MissingSourceFile } from './errors.ts';
import type { IngestReport } from './report.ts';
import type { OfficialFile, SourceSet } from './types.ts';
import { extractZip } from './zip.ts';

/** The name without a trailing `.zip`, so `x.csv` and `x.csv.zip` sort and compare as one file. */
const unzipped = (name: string): string => name.replace(/\.zip$/i, '');

function ordered(file: OfficialFile, names: string[]): string[] {
  const key = file.sortKey ?? unzipped;
  // A zip and its extracted twin are one file: keep the zip (what the download saved).
  const byStem = new Map<string, string>();
  for (const n of names.sort()) {
    const stem = unzipped(n);
    const known = byStem.get(stem);
    if (!known || n.toLowerCase().endsWith('.zip')) byStem.set(stem, n);
  }
  const sorted = [...byStem.values()].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  if (!file.groupKey) return sorted;
  const newest = new Map<string, string>();
  for (const n of sorted) newest.set(file.groupKey(n), n);
  return sorted.filter((n) => newest.get(file.groupKey!(n)) === n);
}

/**
 * Finds each official file of a country in a source folder and extracts zips into `workDir`. A missing
 * required file is a data problem (exit 1): the folder is the input, and a partial input must not become a
 * snapshot with a silently empty country.
 */
export async function resolveSources(
  country: CountryCode,
  dir: string,
  files: readonly OfficialFile[],
  workDir: string,
  report: IngestReport,
): Promise<SourceSet> {
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) {
    throw new MissingSourceFile(`${country}: source folder ${dir} does not exist`);
  }
  const entries = fs.readdirSync(dir).filter((n) => fs.statSync(path.join(dir, n)).isFile());
  const chosen = new Map<string, string[]>();
  for (const file of files) {
    const names = ordered(
      file,
      entries.filter((n) => file.match.test(n)),
    );
    if (names.length === 0 && file.required) {
      throw new MissingSourceFile(
        `${country}: no ${file.title} in ${dir} (a file named like ${file.match.source})`,
      );
    }
    chosen.set(file.key, file.many ? names : names.slice(-1));
  }

  const display = new Map<string, string>();
  const resolved = new Map<string, string[]>();
  fs.mkdirSync(workDir, { recursive: true });
  for (const [key, names] of chosen) {
    const paths: string[] = [];
    for (const name of names) {
      const full = path.join(dir, name);
      if (!name.toLowerCase().endsWith('.zip')) {
        paths.push(full);
        display.set(full, name);
        continue;
      }
      const out = path.join(workDir, unzipped(name));
      const entry = await report.stage(country, `unzip ${name}`, () => extractZip(full, out, name));
      paths.push(out);
      // Messages about lines name the member, which is what an operator opens after unzipping.
      display.set(out, entry.name || unzipped(name));
    }
    resolved.set(key, paths);
  }
  const required = new Map(files.map((f) => [f.key, f]));
  return {
    one(key) {
      const list = resolved.get(key) ?? [];
      if (list.length === 0 && required.get(key)?.required) {
        throw new MissingSourceFile(`${country}: ${required.get(key)?.title ?? key} is missing`);
      }
      return list[list.length - 1] ?? null;
    },
    many(key) {
      return resolved.get(key) ?? [];
    },
    displayName(file) {
      return display.get(file) ?? path.basename(file);
    },
  };
}
