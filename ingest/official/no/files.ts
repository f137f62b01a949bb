import { fixed } from '../links.ts';
import type { OfficialFile } from '../types.ts';

/*
 * Norway's official files (registry-formats.md section 4): Brønnøysundregistrene's nightly bulk downloads of
 * Enhetsregisteret (units, sub-units, roles; JSON arrays, gzipped) and Regnskapsregisteret's per-company
 * annual accounts. JSON keys are read by name; a key the file does not have is NULL.
 */

export const NO_FILE_NAMES = {
  enheter: 'enheter_alle.json.gz',
  underenheter: 'underenheter_alle.json.gz',
  roller: 'roller_totalbestand.json.gz',
  regnskap: 'regnskap.json',
} as const;

const BRREG = 'https://data.brreg.no/enhetsregisteret/api';

/**
 * Role codes kept as the company's people: managing director, board chair and members (registry-formats.md
 * 4.2), deputy members and the owner of an ENK (VARA, INNH: the roles API's codes as remembered, see
 * docs/world.md). Auditors, accountants and contact persons (REVI, REGN, KONT ...) are left out.
 */
export const NO_PERSON_ROLES = ['DAGL', 'LEDE', 'MEDL', 'VARA', 'INNH'] as const;

export const NO_FILES: readonly OfficialFile[] = [
  {
    key: 'enheter',
    title: 'Enhetsregisteret units (enheter, JSON)',
    match: /^enheter_alle\.json(\.gz)?$/,
    required: true,
    downloads: fixed(`${BRREG}/enheter/lastned`, NO_FILE_NAMES.enheter),
    minBytes: 10_000_000,
  },
  {
    key: 'underenheter',
    title: 'Enhetsregisteret sub-units (underenheter, JSON)',
    match: /^underenheter_alle\.json(\.gz)?$/,
    required: true,
    downloads: fixed(`${BRREG}/underenheter/lastned`, NO_FILE_NAMES.underenheter, {
      accept: 'application/vnd.brreg.enhetsregisteret.underenhet.v1+gzip;charset=UTF-8',
    }),
    minBytes: 5_000_000,
  },
  {
    key: 'roller',
    title: 'Enhetsregisteret roles (roller totalbestand, JSON)',
    match: /^roller_totalbestand\.json(\.gz)?$/,
    required: true,
    downloads: fixed(`${BRREG}/roller/totalbestand`, NO_FILE_NAMES.roller),
    minBytes: 5_000_000,
  },
  {
    key: 'regnskap',
    title: 'Regnskapsregisteret annual accounts (the per-company /regnskap/{orgnr} answers, one JSON array)',
    match: /^regnskap([_-][\w-]+)?\.json(\.gz)?$/,
    many: true,
    required: false,
    adds: 'annual accounts: revenue, result and their history',
    // No bulk file exists: the accounts are one request per company (about 390,000 AS), which a separate
    // harvester collects into regnskap*.json; the nightly download does not fetch them (docs/ingest.md).
    downloads: async () => [],
    minBytes: 1_000,
  },
];
