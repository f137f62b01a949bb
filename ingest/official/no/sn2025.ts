/*
 * BRREG codes every unit in SN2025 (NACE Rev. 2.1 plus a national fifth digit, `NN.NNN`) since 1 September
 * 2025, and the API serves SN2025 (ingest/reference/classifiers/sn2025.ts): its NACE classes (`62.10`) and
 * the national leaves BRREG's own texts give (`84.110`). No SSB file of SN2025 was found, so a five-digit
 * code the tree lacks is served as its class. A code of the retired SN2007 (an older file) whose class
 * SN2025 does not have is mapped forward (activity_forward); a code is never mapped backward.
 */

/** SQL joins (after FROM ... alias `src`) that resolve `code` (as BRREG writes it) to a served leaf. */
export function sn2025JoinSql(code: string): string {
  const digits = `regexp_replace(coalesce(${code}, ''), '[^0-9]', '', 'g')`;
  return `LEFT JOIN activity_leaves sn_exact ON sn_exact.kood = trim(${code})
    LEFT JOIN activity_leaves sn_class ON sn_class.kood = substr(${digits}, 1, 2) || '.' || substr(${digits}, 3, 2)
    LEFT JOIN activity_forward sn_old ON sn_old.old = trim(${code})`;
}
export const SN2025_LEAF_SQL = 'coalesce(sn_exact.kood, sn_class.kood, sn_old.kood)';

/**
 * For the writer: the code BRREG writes for a served leaf. A national leaf is written as it is; a class
 * leaf gets the fifth digit 0, SSB's digit for a class without national subdivision (the world's own
 * spelling: which SN2025 classes are subdivided is not known here).
 */
export function sn2025CodeSql(kood: string): string {
  return `CASE WHEN length(${kood}) = 6 THEN ${kood} ELSE ${kood} || '0' END`;
}
