import { words } from './words.ts';
import { SE_DEREGISTRATION_TEXT, SE_FTGSTAT, SE_PROCEEDINGS } from '../../official/se/codes.ts';
import { codedStatuses, digits, legalForms, nordicPlaces, templates, tlds } from './tables.ts';
import type { CountryProfile, LegalForm } from './types.ts';

/*
 * Sweden: SCB Företagsregistret (JE bulk file / FDB API) with Bolagsverket status events.
 * - JurForm codes and labels: SCB JURFORM as published in the FHIR code system
 *   danka74/verksamhet-och-organisation input/fsh/vocabulary/scb-legal-form.fsh (current version, with
 *   "Regioner" and "Aktiebolag utom bank- och försäkringsaktiebolag"). Name abbreviations: ISO 20275 ELF
 *   rows for SE (AB, HB, KB, BRF, Ek. för.).
 * - FtgStat 1 active / 9 not active / 0 never active (registry-formats.md 7.1). Bolagsverket proceedings
 *   LI-AVOMFO (liquidation) and KK-AVOMFO (bankruptcy) from bolagsverket_bulkfil.txt (7.1) and the
 *   deregistration causes KKAV / LIAV / FUAV from Bolagsverket's code list as copied in a public MCP
 *   server ("Bolagsverket MCP Server - Kodlistor", search excerpt, no repository recorded).
 * - Organisationsnummer first digit per legal form (5 AB, 9 HB/KB, 7 economic associations incl. BRF,
 *   8 non-profit associations and foundations, 2 public bodies), third digit >= 2, Luhn check digit.
 *   Sole traders (JurForm 10) are identified by a personal ID only, so their registrikood is ''.
 * - People: SCB publishes none (spec 2.3).
 * - Size: 1,813,820 JE records (registry-formats.md 7.5); workplaces ~1.4M.
 */

// Codes and wording are the official reader's (official/se/codes.ts): FtgStat, then Bolagsverket's.
const deregistered = Object.fromEntries(
  Object.entries(SE_DEREGISTRATION_TEXT).map(([code, text]) => [code, { staatus: 'K', text }]),
);
const companyStatuses = [
  ...codedStatuses(SE_FTGSTAT, ['1', 0.62], ['9', 0.2], ['0', 0.035]),
  ...codedStatuses(SE_PROCEEDINGS, ['LI-AVOMFO', 0.025], ['KK-AVOMFO', 0.01]),
  ...codedStatuses(deregistered, ['LIAV-AVORG', 0.05], ['KKAV-AVORG', 0.035], ['FUAV-AVORG', 0.025]),
];
const soleStatuses = codedStatuses(SE_FTGSTAT, ['1', 0.55], ['9', 0.4], ['0', 0.05]);

const form = legalForms({ affix: null, vatShare: 0.7, people: 'none', filesAccounts: false });

const family = (
  key: string,
  share: number,
  codeLo: number,
  codeSpan: number,
  forms: LegalForm[],
): CountryProfile['families'][number] => ({
  key,
  share,
  codeLo,
  codeSpan,
  forms,
  statuses: companyStatuses,
  firstRegistration: '1975-01-01',
  meanAgeYears: 14,
});

export const SE: CountryProfile = {
  total: 1_800_000,
  currency: 'SEK',
  eurRate: 11.3,
  operatingShare: 0.75,
  maxEmployees: 30_000,
  families: [
    family('ab', 0.4, 556_000_000, 3_999_999, [
      form({
        code: '49',
        label: 'Aktiebolag utom bank- och försäkringsaktiebolag',
        weight: 0.997,
        affix: 'AB',
      }),
      form({ code: '41', label: 'Bankaktiebolag', weight: 0.0003, affix: 'Bank AB', sizeShift: 3 }),
      form({
        code: '42',
        label: 'Försäkringsaktiebolag',
        weight: 0.002,
        affix: 'Försäkrings AB',
        sizeShift: 1.5,
      }),
      form({ code: '43', label: 'Europabolag', weight: 0.0007, affix: 'SE', sizeShift: 2 }),
    ]),
    family('hb', 0.05, 969_000_000, 999_999, [
      form({ code: '31', label: 'Handelsbolag, kommanditbolag', weight: 0.8, affix: 'HB', sizeShift: -0.5 }),
      form({ code: '31', label: 'Handelsbolag, kommanditbolag', weight: 0.2, affix: 'KB', sizeShift: -0.5 }),
    ]),
    family('ek', 0.04, 769_000_000, 999_999, [
      form({
        code: '51',
        label: 'Ekonomiska föreningar utom bostadsrättsföreningar',
        weight: 0.35,
        affix: 'Ekonomisk förening',
        vatShare: 0.5,
      }),
      form({
        code: '53',
        label: 'Bostadsrättsföreningar',
        weight: 0.62,
        affix: 'Bostadsrättsföreningen',
        affixPosition: 'prefix',
        nameStyle: 'assoc',
        sizeShift: -1.5,
        vatShare: 0.05,
      }),
      form({
        code: '54',
        label: 'Kooperativa hyresrättsföreningar',
        weight: 0.03,
        affix: 'Kooperativa hyresrättsföreningen',
        affixPosition: 'prefix',
        nameStyle: 'assoc',
        sizeShift: -1.5,
        vatShare: 0.05,
      }),
    ]),
    family('ideell', 0.06, 802_000_000, 7_999_999, [
      form({
        code: '61',
        label: 'Ideella föreningar',
        weight: 0.6,
        nameStyle: 'assoc',
        sizeShift: -1.2,
        vatShare: 0.05,
      }),
      form({
        code: '62',
        label: 'Samfällighetsföreningar, vägföreningar, vägsamfälligheter',
        weight: 0.25,
        nameStyle: 'housing',
        sizeShift: -2,
        vatShare: 0.02,
      }),
      form({
        code: '63',
        label: 'Registrerade trossamfund',
        weight: 0.02,
        nameStyle: 'assoc',
        vatShare: 0.02,
      }),
      form({
        code: '71',
        label: 'Familjestiftelser',
        weight: 0.03,
        affix: 'Stiftelsen',
        affixPosition: 'prefix',
        nameStyle: 'assoc',
      }),
      form({
        code: '72',
        label: 'Övriga stiftelser och fonder, inkl pensionsstiftelser och personalstiftelser',
        weight: 0.1,
        affix: 'Stiftelsen',
        affixPosition: 'prefix',
        nameStyle: 'assoc',
        vatShare: 0.1,
      }),
    ]),
    family('public', 0.005, 212_000_000, 999_999, [
      form({
        code: '81',
        label: 'Statliga enheter',
        weight: 0.5,
        nameStyle: 'assoc',
        sizeShift: 2,
        vatShare: 0.3,
      }),
      form({
        code: '83',
        label: 'Kommunalförbund',
        weight: 0.05,
        nameStyle: 'assoc',
        sizeShift: 1.5,
        vatShare: 0.5,
      }),
      form({
        code: '87',
        label: 'Offentliga korporationer och anstalter',
        weight: 0.45,
        nameStyle: 'assoc',
        vatShare: 0.3,
      }),
    ]),
    family('foreign', 0.005, 516_000_000, 999_999, [
      form({ code: '96', label: 'Utländska juridiska personer', weight: 1, affix: 'filial', vatShare: 0.6 }),
    ]),
    {
      key: 'sole',
      share: 0.44,
      codeLo: 0,
      codeSpan: 0,
      noCode: true,
      firstRegistration: '1975-01-01',
      meanAgeYears: 11,
      statuses: soleStatuses,
      forms: [
        form({
          code: '10',
          label: 'Fysiska personer',
          weight: 1,
          nameStyle: 'person',
          soleTrader: true,
          sizeShift: -0.9,
          vatShare: 0.45,
        }),
      ],
    },
  ],
  defaultRoles: [],
  names: {
    firstMale: words(`
Lars, Anders, Johan, Per, Erik, Karl, Peter, Thomas, Jan, Daniel, Fredrik, Hans, Mikael, Magnus,
Stefan, Mats, Björn, Nils, Oskar, Gustav, Håkan, Jörgen, Åke, Göran
`),
    firstFemale: words(`
Anna, Maria, Eva, Karin, Kristina, Lena, Sara, Emma, Ingrid, Kerstin, Elin, Linnéa, Sofia, Malin,
Ida, Johanna, Åsa, Birgitta, Ulla, Marie, Helena, Camilla, Frida, Märta
`),
    lastMale: words(`
Andersson, Johansson, Karlsson, Nilsson, Eriksson, Larsson, Olsson, Persson, Svensson, Gustafsson,
Pettersson, Jonsson, Jansson, Hansson, Bengtsson, Jönsson, Lindberg, Jakobsson, Magnusson, Olofsson,
Lindström, Lindqvist, Lindgren, Berg, Axelsson, Bergström, Lundberg, Lundgren, Lundqvist, Mattsson,
Berglund, Fredriksson, Sandberg, Henriksson, Forsberg, Sjöberg, Wallin, Engström, Eklund, Åberg,
Löfgren, Söderberg, Nyström, Holmberg
`),
    lastFemale: [],
    stemHeads: words(`
Norr, Söder, Väster, Öster, Fjäll, Sol, Sjö, Berg, Skog, Strand, Älv, Ek, Björk, Gran, Lin, Guld,
Silver, Stjärn, Ljus, Nord, Tall, Lönn, Hav, Vind
`),
    stemTails: words(`
skogen, fjäll, strand, berga, dal, vik, holm, näs, hamn, sten, gården, ängen, backen, udden, ön
`),
    stemJoiner: '',
    business: {
      A: words('Lantbruk, Skog, Trädgård'),
      B: words('Grus, Täkt'),
      C: words('Mekaniska, Industri, Snickeri, Bageri, Produktion'),
      D: words('Kraft, Energi'),
      E: words('Miljö, Återvinning'),
      F: words('Bygg, El, VVS, Måleri, Tak, Mark & Anläggning'),
      G: words('Handel, Import, Bil, Partihandel'),
      H: words('Transport, Logistik, Åkeri, Taxi'),
      I: words('Restaurang, Café, Hotell, Catering'),
      J: words('Data, IT, Media, Digital, Systemutveckling'),
      K: words('Invest, Kapital, Finans'),
      L: words('Fastigheter, Förvaltning, Holding'),
      M: words('Konsult, Redovisning, Juristbyrå, Arkitekter, Design, Management'),
      N: words('Service, Städ, Uthyrning, Bevakning'),
      O: words('Service'),
      P: words('Utbildning, Akademi, Trafikskola'),
      Q: words('Tandvård, Fysioterapi, Vård, Hälsa'),
      R: words('Studio, Sport, Musik, Kultur'),
      S: words('Frisör, Hudvård, Service'),
      T: words('Hem'),
      U: words('Representation'),
      _: words('Holding, Gruppen, Service'),
    },
    association: words(`
Idrottsförening, Hembygdsförening, Skytteförening, Båtklubb, Jaktvårdskrets, Golfklubb,
Föräldraförening, Bygdegårdsförening, Fiskevårdsförening
`),
    streets: words(`
Storgatan, Drottninggatan, Kungsgatan, Skolgatan, Industrivägen, Järnvägsgatan, Torggatan,
Kyrkogatan, Nygatan, Villavägen, Ringvägen, Parkgatan, Hamngatan, Södra vägen, Norra vägen,
Björkvägen, Strandvägen, Fabriksgatan, Sveavägen, Vasagatan
`),
    templates: {
      org: templates({ '{stem}': 0.3, '{stem} {biz}': 0.35, '{last} {biz}': 0.2, '{town} {biz}': 0.15 }),
      person: templates({ '{first} {last}': 0.4, '{last}s {biz}': 0.35, '{first} {last} {biz}': 0.25 }),
      assoc: templates({ '{town} {assoc}': 0.5, '{stem}': 0.3, '{stem} {assoc}': 0.2 }),
      housing: templates({ '{street} {nr} samfällighetsförening': 0.5, '{stem} vägförening': 0.5 }),
    },
  },
  contacts: {
    published: { email: 0.25, www: 0.12, tel: 0.35, mob: 0.15 },
    mailboxes: ['info', 'kontakt', 'order', 'ekonomi'],
    tlds: tlds({ se: 0.85, com: 0.15 }),
    mobile: [digits('+46 7# ### ## ##')],
    landline: [
      digits('+46 8 ### ### ##', 0.4),
      digits('+46 31 ### ## ##', 0.3),
      digits('+46 40 ## ## ##', 0.3),
    ],
  },
  clusters: [
    { names: ['Stockholm'], share: 0.12 },
    { names: ['Stockholms län'], share: 0.13 },
    { names: ['Göteborg'], share: 0.06 },
    { names: ['Malmö'], share: 0.035 },
    { names: ['Uppsala'], share: 0.025 },
  ],
  ...nordicPlaces(digits('### ##')),
};
