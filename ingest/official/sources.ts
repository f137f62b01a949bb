import fs from 'node:fs';
import path from 'node:path';
import type { CountryCode } from '../../src/contract/countries.ts';
import { MissingSourceFile, SourceFileError } from './errors.ts';
import { UNPACK_LIMIT_DEFAULTS, type UnpackLimits } from './input-limits.ts';
import type { IngestReport } from './report.ts';
import type { OfficialFile, SourceSet } from './types.ts';
import { checkInflatedSize, extractGzip, extractZip, zipDataMember } from './zip.ts';

/** The name without a trailing `.zip` or `.gz`, so `x.csv`, `x.csv.zip` and `x.csv.gz` compare as one file. */
const uncontained = (name: string): string => name.replace(/\.(zip|gz)$/i, '');
const isZip = (name: string): boolean => /\.zip$/i.test(name);
const isGzip = (name: string): boolean => /\.gz$/i.test(name);

/** Which enrichments an operator wants treated as required: every one, or some by key (`yldandmed`, `EE:yldandmed`). */
export interface RequireSpec {
  all: boolean;
  keys: ReadonlySet<string>;
}

export const REQUIRE_NONE: RequireSpec = { all: false, keys: new Set() };

function requiredBySpec(country: CountryCode, file: OfficialFile, spec: RequireSpec): boolean {
  return spec.all || spec.keys.has(file.key) || spec.keys.has(`${country}:${file.key}`);
}

/** A name the file accepts: as it is, or inside a `.zip`/`.gz` container its pattern does not name. */
function accepts(file: OfficialFile, name: string): boolean {
  return file.match.test(name) || ((isZip(name) || isGzip(name)) && file.match.test(uncontained(name)));
}

function ordered(file: OfficialFile, names: string[]): string[] {
  const key = file.sortKey ?? uncontained;
  // A container and its extracted twin are one file: keep the container (what the download saved).
  const byStem = new Map<string, string>();
  for (const n of names.sort()) {
    const stem = uncontained(n);
    const known = byStem.get(stem);
    if (!known || isZip(n) || isGzip(n)) byStem.set(stem, n);
  }
  const sorted = [...byStem.values()].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  if (!file.groupKey) return sorted;
  const newest = new Map<string, string>();
  for (const n of sorted) newest.set(file.groupKey(n), n);
  return sorted.filter((n) => newest.get(file.groupKey!(n)) === n);
}

/** What one country's source folder holds: the files chosen per entry and the enrichments it lacks. */
export interface SourcePlan {
  country: CountryCode;
  dir: string;
  chosen: ReadonlyMap<string, readonly string[]>;
  files: readonly OfficialFile[];
  /** Optional files that are absent: their fields stay null. */
  missing: readonly OfficialFile[];
}

/**
 * Why a present file cannot be read, checked cheaply (headers and a zip's directory only) before any
 * country is staged: a zip whose member would inflate past the caps is named here, before any unpacking.
 */
async function unreadable(full: string, name: string, limits: UnpackLimits): Promise<string | null> {
  let fd: number;
  try {
    fd = fs.openSync(full, 'r');
  } catch (err) {
    return `cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`;
  }
  try {
    const size = fs.fstatSync(fd).size;
    if (size === 0) return 'is empty (0 bytes)';
    if (isGzip(name)) {
      const magic = Buffer.alloc(2);
      fs.readSync(fd, magic, 0, 2, 0);
      if (magic[0] !== 0x1f || magic[1] !== 0x8b) return 'is named .gz but is not a gzip file';
    }
  } finally {
    fs.closeSync(fd);
  }
  if (isZip(name)) {
    try {
      const member = await zipDataMember(full, name);
      if (!member) return 'is an empty zip archive';
      checkInflatedSize(
        name,
        `member ${member.name}`,
        { compressed: member.compressedSize, inflated: member.size },
        limits,
      );
    } catch (err) {
      return err instanceof SourceFileError ? err.problem : String(err);
    }
  }
  return null;
}

/**
 * Looks at one country's source folder without reading any data: which file answers each entry, which
 * enrichments are absent, and every problem that would stop the run (a missing principal file, an
 * unreadable or empty file, a broken container). All problems are returned together, so an operator fixes
 * a folder in one pass instead of one run per problem.
 */
export async function planSources(
  country: CountryCode,
  dir: string,
  files: readonly OfficialFile[],
  require: RequireSpec = REQUIRE_NONE,
  limits: UnpackLimits = UNPACK_LIMIT_DEFAULTS,
): Promise<{ plan: SourcePlan; problems: string[] }> {
  const problems: string[] = [];
  const chosen = new Map<string, string[]>();
  const missing: OfficialFile[] = [];
  const isDir = fs.existsSync(dir) && fs.statSync(dir).isDirectory();
  if (!isDir) problems.push(`${country}: source folder ${dir} does not exist`);
  const entries = isDir ? fs.readdirSync(dir).filter((n) => fs.statSync(path.join(dir, n)).isFile()) : [];
  for (const file of files) {
    const names = ordered(
      file,
      entries.filter((n) => accepts(file, n)),
    );
    if (names.length === 0) {
      if (file.required) {
        if (isDir) {
          problems.push(
            `${country}: no ${file.title} in ${dir} (the principal file, named like ${file.match.source}; plain, .zip or .gz)`,
          );
        }
      } else if (requiredBySpec(country, file, require)) {
        problems.push(
          `${country}: no ${file.title} in ${dir} (named like ${file.match.source}), required by --require`,
        );
      } else {
        missing.push(file);
      }
    }
    const picked = file.many ? names : names.slice(-1);
    for (const name of picked) {
      const why = await unreadable(path.join(dir, name), name, limits);
      if (why) problems.push(`${country}: ${name} ${why}`);
    }
    chosen.set(file.key, picked);
  }
  return { plan: { country, dir, chosen, files, missing }, problems };
}

/**
 * Opens a planned source folder: extracts every `.zip`, and every `.gz` the file's pattern does not name,
 * into `workDir` (each within `limits` and the free space there), and hands the adapter the paths to read.
 */
export async function openSources(
  plan: SourcePlan,
  workDir: string,
  report: IngestReport,
  limits: UnpackLimits = UNPACK_LIMIT_DEFAULTS,
): Promise<SourceSet> {
  const { country, dir } = plan;
  const display = new Map<string, string>();
  const resolved = new Map<string, string[]>();
  const byKey = new Map(plan.files.map((f) => [f.key, f]));
  fs.mkdirSync(workDir, { recursive: true });
  for (const [key, names] of plan.chosen) {
    const file = byKey.get(key)!;
    const paths: string[] = [];
    for (const name of names) {
      const full = path.join(dir, name);
      const out = path.join(workDir, uncontained(name));
      if (isZip(name)) {
        const entry = await report.stage(country, `unzip ${name}`, () => extractZip(full, out, name, limits));
        paths.push(out);
        // Messages about lines name the member, which is what an operator opens after unzipping.
        display.set(out, entry.name || uncontained(name));
      } else if (isGzip(name) && !file.match.test(name)) {
        await report.stage(country, `gunzip ${name}`, () => extractGzip(full, out, name, limits));
        paths.push(out);
        display.set(out, uncontained(name));
      } else {
        paths.push(full);
        display.set(full, name);
      }
    }
    resolved.set(key, paths);
  }
  return {
    one(key) {
      const list = resolved.get(key) ?? [];
      if (list.length === 0 && byKey.get(key)?.required) {
        throw new MissingSourceFile(`${country}: ${byKey.get(key)?.title ?? key} is missing`);
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
