import type { ClassItem } from '../activity-tree.ts';
import { readDataFile } from '../data-files.ts';
import type { NaceEntry } from './nace.ts';

interface KlassItem {
  code: string;
  level: string;
  name: string;
  parentCode: string;
}

function isKlassItem(value: unknown): value is KlassItem {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.code === 'string' &&
    typeof v.level === 'string' &&
    typeof v.name === 'string' &&
    typeof v.parentCode === 'string'
  );
}

/**
 * SN2007 (SSB Klass classification 6, version 501) in Bokmål. SSB writes codes the NACE way down to the
 * class (`62`, `62.0`, `62.01`) and adds a national level `NN.NNN` (`62.010`), the form BRREG publishes as
 * `naeringskode1.kode`. SN2007 leaves out division 98. English comes from NACE Rev. 2 for levels 1-4.
 */
export function readSn2007(naceRev2: ReadonlyMap<string, NaceEntry>): ClassItem[] {
  const parsed: unknown = JSON.parse(readDataFile('sn2007'));
  const items =
    typeof parsed === 'object' && parsed !== null && 'classificationItems' in parsed
      ? parsed.classificationItems
      : undefined;
  if (!Array.isArray(items)) throw new Error('SN2007: classificationItems missing');
  return items.map((raw: unknown) => {
    if (!isKlassItem(raw)) throw new Error(`SN2007: malformed item ${JSON.stringify(raw)}`);
    return {
      code: raw.code,
      parent: raw.parentCode === '' ? null : raw.parentCode,
      en: raw.level === '5' ? null : (naceRev2.get(raw.code)?.label ?? null),
      native: raw.name.trim(),
    };
  });
}
