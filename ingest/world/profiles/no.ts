import { words } from './words.ts';
import {
  capital,
  digits,
  legalForms,
  nordicPlaces,
  roles,
  statusOptions,
  templates,
  tlds,
} from './tables.ts';
import type { CountryProfile } from './types.ts';

/*
 * Norway: Brønnøysundregistrene, Enhetsregisteret (enheter).
 * - organisasjonsform codes and labels: the complete list of
 *   https://data.brreg.no/enhetsregisteret/api/organisasjonsformer as copied into a public TypeScript map
 *   ([id:19937442556], identical to four public Python copies [id:9105957246] ...). Weights follow the
 *   counts in registry-formats.md 4.5 (AS 427k, ENK ~456k of 1.16M).
 * - Enhetsregisteret has no status code: a unit is normal unless a flag is set. source_status is the
 *   name of the flag that is set (`konkurs`, `underAvvikling`, `underTvangsavviklingEllerTvangsopplosning`,
 *   `underRekonstruksjonsforhandlingDato`, field names from registry-formats.md 4.1), null for normal
 *   units. The bulk file holds existing units only, so nothing is deleted (K).
 * - Role codes DAGL / LEDE / MEDL: registry-formats.md 4.2 (roles API). INNH (innehaver) for ENK and
 *   VARA (varamedlem) are the roles API's codes as remembered, not seen in a file (docs/world.md).
 * - Codes: organisasjonsnummer, 9 digits starting 8 or 9, mod-11 check (registration-codes.ts).
 * - Size: 1,162,944 enheter (registry-formats.md 4.5).
 */

const statuses = statusOptions(
  ['R', null, 'Registrert', 0.955],
  ['L', 'underAvvikling', 'Under avvikling', 0.02],
  ['L', 'underTvangsavviklingEllerTvangsopplosning', 'Under tvangsavvikling eller tvangsoppløsning', 0.01],
  ['N', 'konkurs', 'Konkurs', 0.013],
  ['T', 'underRekonstruksjonsforhandlingDato', 'Under rekonstruksjonsforhandling', 0.002],
);

// AS minimum share capital is 30,000 NOK since 2012 (100,000 NOK before); ASA 1,000,000 NOK.
const asCapital = capital(
  [
    [30_000, 0.55],
    [100_000, 0.2],
    [50_000, 0.05],
  ],
  { tailShare: 0.2, tailMedian: 200_000, decimals: 0 },
);
const asaCapital = capital([[1_000_000, 0.3]], { tailShare: 0.7, tailMedian: 50_000_000, decimals: 0 });

const board = roles(
  ['LEDE', 'Styrets leder', 0.35],
  ['DAGL', 'Daglig leder', 0.3],
  ['MEDL', 'Styremedlem', 0.3],
  ['VARA', 'Varamedlem', 0.05],
);

const form = legalForms({ affix: 'code', vatShare: 0.55, people: 'board', filesAccounts: false });

const assoc = {
  affix: null,
  affixPosition: 'none',
  nameStyle: 'assoc',
  sizeShift: -1,
  vatShare: 0.05,
} as const;

export const NO: CountryProfile = {
  total: 1_160_000,
  currency: 'NOK',
  eurRate: 11.6,
  operatingShare: 0.62,
  maxEmployees: 20_000,
  families: [
    {
      key: 'orgnr',
      share: 1,
      codeLo: 8_000_000,
      codeSpan: 2_000_000,
      firstRegistration: '1970-01-01',
      meanAgeYears: 12,
      statuses,
      forms: [
        form({ code: 'AS', label: 'Aksjeselskap', weight: 0.37, capital: asCapital, filesAccounts: true }),
        form({
          code: 'ASA',
          label: 'Allmennaksjeselskap',
          weight: 0.0003,
          sizeShift: 3,
          vatShare: 0.95,
          capital: asaCapital,
          filesAccounts: true,
        }),
        form({
          code: 'ENK',
          label: 'Enkeltpersonforetak',
          weight: 0.39,
          affix: null,
          affixPosition: 'none',
          nameStyle: 'person',
          soleTrader: true,
          sizeShift: -0.8,
          vatShare: 0.35,
          people: 'owner',
          roles: [{ code: 'INNH', label: 'Innehaver', weight: 1 }],
        }),
        form({ code: 'NUF', label: 'Norskregistrert utenlandsk foretak', weight: 0.025, vatShare: 0.5 }),
        form({ code: 'ANS', label: 'Ansvarlig selskap med solidarisk ansvar', weight: 0.013 }),
        form({ code: 'DA', label: 'Ansvarlig selskap med delt ansvar', weight: 0.009 }),
        form({ code: 'KS', label: 'Kommandittselskap', weight: 0.002 }),
        form({ code: 'BA', label: 'Selskap med begrenset ansvar', weight: 0.003 }),
        form({ code: 'SA', label: 'Samvirkeforetak', weight: 0.007, filesAccounts: true }),
        form({ code: 'FLI', label: 'Forening/lag/innretning', weight: 0.075, ...assoc }),
        form({
          code: 'STI',
          label: 'Stiftelse',
          weight: 0.008,
          ...assoc,
          affix: 'Stiftelsen',
          affixPosition: 'prefix',
        }),
        form({ code: 'BRL', label: 'Borettslag', weight: 0.017, ...assoc, nameStyle: 'housing' }),
        form({ code: 'ESEK', label: 'Eierseksjonssameie', weight: 0.025, ...assoc, nameStyle: 'housing' }),
        form({ code: 'SAM', label: 'Tingsrettslig sameie', weight: 0.02, ...assoc, nameStyle: 'housing' }),
        form({ code: 'ORGL', label: 'Organisasjonsledd', weight: 0.01, ...assoc }),
        form({ code: 'IKS', label: 'Interkommunalt selskap', weight: 0.0003, affix: 'IKS' }),
      ],
    },
  ],
  defaultRoles: board,
  names: {
    firstMale: words(`
Ole, Lars, Jan, Per, Kjell, Arne, Knut, Svein, Bjørn, Geir, Terje, Jon, Magnus, Henrik, Anders, Erik,
Thomas, Martin, Øyvind, Håkon, Espen, Eirik, Trond, Rune, Sindre, Jørgen, Mohammad
`),
    firstFemale: words(`
Anne, Inger, Kari, Marit, Ingrid, Liv, Eva, Berit, Astrid, Hilde, Nina, Silje, Ingvild, Kristin,
Ida, Nora, Sofie, Randi, Solveig, Tone, Guro, Åse, Maren, Ragnhild
`),
    lastMale: words(`
Hansen, Johansen, Olsen, Larsen, Andersen, Pedersen, Nilsen, Kristiansen, Jensen, Karlsen, Johnsen,
Pettersen, Eriksen, Berg, Haugen, Hagen, Johannessen, Andreassen, Jacobsen, Dahl, Jørgensen,
Halvorsen, Henriksen, Lund, Sørensen, Jakobsen, Moen, Gundersen, Iversen, Strand, Solberg, Svendsen,
Eide, Knutsen, Martinsen, Paulsen, Bakken, Lie, Nygård, Sæther, Ødegård, Næss, Strøm, Bøe, Aas
`),
    lastFemale: [],
    stemHeads: words(`
Nord, Sør, Vest, Øst, Fjell, Fjord, Hav, Sol, Stein, Skog, Elv, Berg, Vik, Is, Lys, Tind, Bre, Dal,
Ny, Gull, Sjø, Storm, Vind, Furu, Bjørke
`),
    stemTails: words(`
lys, fjell, tind, vik, stein, hav, dal, bakken, heim, kraft, stjerne, bris, lia, nes, vang, toppen
`),
    stemJoiner: '',
    business: {
      A: words('Gård, Landbruk, Skog, Havbruk'),
      B: words('Pukkverk, Grus'),
      C: words('Mekaniske, Industri, Snekkeri, Trevare, Bakeri'),
      D: words('Kraft, Energi'),
      E: words('Miljø, Gjenvinning'),
      F: words('Bygg, Entreprenør, Elektro, Rør, Maling, Tak, Anlegg'),
      G: words('Handel, Import, Bilsenter, Engros'),
      H: words('Transport, Logistikk, Taxi, Shipping'),
      I: words('Restaurant, Kafé, Hotell, Catering'),
      J: words('Data, IT, Software, Media, Digital'),
      K: words('Invest, Kapital, Finans'),
      L: words('Eiendom, Utleie, Holding'),
      M: words('Consult, Regnskap, Advokatfirma, Arkitekter, Rådgivning, Design'),
      N: words('Service, Renhold, Utleie, Vakt'),
      O: words('Service'),
      P: words('Kurs, Akademi, Trafikkskole'),
      Q: words('Tannklinikk, Fysioterapi, Legesenter, Helse'),
      R: words('Studio, Sport, Musikk, Kunst'),
      S: words('Frisør, Hudpleie, Service'),
      T: words('Hjem'),
      U: words('Representasjon'),
      _: words('Holding, Gruppen, Service'),
    },
    association: words(`
Idrettslag, Sanitetsforening, Musikkorps, Velforening, Skytterlag, Historielag, Båtforening,
Jeger- og fiskerforening, Grendelag, Ungdomslag
`),
    streets: words(`
Storgata, Kirkegata, Strandveien, Industriveien, Sjøgata, Skolegata, Parkveien, Bakkeveien,
Fjordveien, Jernbanegata, Torget, Havnegata, Nygata, Kongens gate, Dronningens gate, Elvegata,
Granveien, Bjørkeveien, Solbakken, Myrveien
`),
    templates: {
      org: templates({ '{stem}': 0.3, '{stem} {biz}': 0.35, '{last} {biz}': 0.2, '{town} {biz}': 0.15 }),
      person: templates({ '{first} {last}': 0.45, '{last} {biz}': 0.3, '{first} {last} {biz}': 0.25 }),
      assoc: templates({ '{town} {assoc}': 0.6, '{stem} {assoc}': 0.4 }),
      housing: templates({
        '{street} {nr} Borettslag': 0.4,
        'Eierseksjonssameiet {street} {nr}': 0.4,
        'Sameiet {street} {nr}': 0.2,
      }),
    },
  },
  contacts: {
    published: { email: 0.35, www: 0.2, tel: 0.1, mob: 0.3 },
    mailboxes: ['post', 'firmapost', 'kontakt', 'info'],
    tlds: tlds({ no: 0.88, com: 0.12 }),
    mobile: [digits('+47 9## ## ###', 0.6), digits('+47 4## ## ###', 0.4)],
    landline: [digits('+47 2# ## ## ##')],
  },
  clusters: [{ names: ['Oslo'], share: 0.15 }],
  ...nordicPlaces(digits('####')),
};
