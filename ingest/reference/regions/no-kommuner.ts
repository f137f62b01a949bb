import { readDataFile } from '../data-files.ts';
import type { LocationLeaf } from '../types.ts';

interface Kommune {
  k_id: string;
  k_name_no: string;
  k_population: number;
}
interface Fylke {
  f_id: string;
  f_name: string;
}

function isKommune(v: unknown): v is Kommune {
  if (typeof v !== 'object' || v === null) return false;
  const r = v as Record<string, unknown>;
  return typeof r.k_id === 'string' && typeof r.k_name_no === 'string' && typeof r.k_population === 'number';
}
function isFylke(v: unknown): v is Fylke {
  if (typeof v !== 'object' || v === null) return false;
  const r = v as Record<string, unknown>;
  return typeof r.f_id === 'string' && typeof r.f_name === 'string';
}

function readArray<T>(text: string, guard: (v: unknown) => v is T, what: string): T[] {
  const parsed: unknown = JSON.parse(text);
  if (!Array.isArray(parsed)) throw new Error(`${what}: not a JSON array`);
  return parsed.map((v: unknown) => {
    if (!guard(v)) throw new Error(`${what}: malformed entry ${JSON.stringify(v)}`);
    return v;
  });
}

/**
 * Norwegian kommuner (2024 structure) under their fylke, which is the first two digits of the
 * kommunenummer. Spec 4.2 gives NO no location tree, so only the leaves are built. For a few kommuner
 * `k_name` is the Sami or Kven name (1826 "Aarborte" for Hattfjelldal); BRREG addresses use the
 * Norwegian one, `k_name_no`.
 */
export function readNoKommuner(): LocationLeaf[] {
  const fylker = new Map(
    readArray(readDataFile('noFylker'), isFylke, 'no_fylker_2025.json').map((f) => [f.f_id, f.f_name]),
  );
  return readArray(readDataFile('noKommuner'), isKommune, 'no_kommuner_2025.json')
    .map((k) => {
      if (!/^\d{4}$/.test(k.k_id)) throw new Error(`no_kommuner_2025.json: k_id ${k.k_id} is not 4 digits`);
      const fylke = fylker.get(k.k_id.slice(0, 2));
      if (fylke === undefined) throw new Error(`no_kommuner_2025.json: ${k.k_id} has no fylke`);
      return { kood: k.k_id, name: k.k_name_no, path: [fylke, k.k_name_no], population: k.k_population };
    })
    .sort((a, b) => (a.kood < b.kood ? -1 : 1));
}
