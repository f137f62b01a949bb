import { words } from './words.ts';
import { FI_STATUS } from '../../official/fi/files.ts';
import { codedStatuses, digits, legalForms, nordicPlaces, roles, templates, tlds } from './tables.ts';
import type { CountryProfile } from './types.ts';

/*
 * Finland: PRH / YTJ open data v3 (all_companies).
 * - companyForms `type` codes: the PRH/YTJ company-form enumeration as used by a public API client
 *   (DjangoCodez/MainProject Soe.Business/Util/API/AvionData/Enum/CompanyFormType.cs: AOY 2, AY 5,
 *   AYH 6, KOY 10, KY 13, OK 14, OY 16, OYJ 17, SÄÄ 18, SL 19 ...), consistent with registry-formats.md
 *   5.1 (16 = Osakeyhtiö, 2 = asunto-osakeyhtiö, 10 = keskinäinen kiinteistöosakeyhtiö). Finnish labels
 *   are the ISO 20275 ELF local names for FI.
 * - Status: tradeRegisterStatus "1" registered and "4" ceased (two sources; "2" is contested) and
 *   companySituations KONK / SELTILA / SANE (registry-formats.md 5.1). source_status is the situation code
 *   where one is set, else the tradeRegisterStatus.
 * - Sole traders are not in the open data (registry-formats.md 5.1), so there are none here.
 * - Roles: the open data has no role codes, so `roll` is the Finnish role name itself (docs/world.md).
 * - Size: ~1.15M records, ~460k active (registry-formats.md 5.4, derived by COLT).
 */

// Codes and wording are the official reader's (official/fi/files.ts FI_STATUS); "1" is a registered entry.
const states = {
  '1': FI_STATUS.registered,
  [FI_STATUS.ceased.tradeRegisterStatus]: FI_STATUS.ceased,
  ...Object.fromEntries(FI_STATUS.situations.map((s) => [s.type, s])),
};
const statuses = codedStatuses(
  states,
  ['1', 0.4],
  ['SELTILA', 0.02],
  ['KONK', 0.02],
  ['SANE', 0.004],
  ['4', 0.556],
);

const board = roles(
  ['Hallituksen jäsen', 'Hallituksen jäsen', 0.45],
  ['Hallituksen puheenjohtaja', 'Hallituksen puheenjohtaja', 0.25],
  ['Toimitusjohtaja', 'Toimitusjohtaja', 0.2],
  ['Hallituksen varajäsen', 'Hallituksen varajäsen', 0.1],
);

const form = legalForms({ affix: null, vatShare: 0.6, people: 'board', filesAccounts: false });

export const FI: CountryProfile = {
  total: 1_150_000,
  currency: 'EUR',
  eurRate: 1,
  operatingShare: 0.75,
  maxEmployees: 12_000,
  families: [
    {
      key: 'ytunnus',
      share: 1,
      codeLo: 10_000,
      codeSpan: 330_000,
      firstRegistration: '1978-01-01',
      meanAgeYears: 14,
      statuses,
      forms: [
        form({ code: '16', label: 'Osakeyhtiö', weight: 0.55, affix: 'Oy' }),
        form({
          code: '17',
          label: 'Julkinen osakeyhtiö',
          weight: 0.0005,
          affix: 'Oyj',
          sizeShift: 3,
          vatShare: 0.95,
        }),
        form({
          code: '2',
          label: 'Asunto-osakeyhtiö',
          weight: 0.08,
          affix: 'Asunto Oy',
          affixPosition: 'prefix',
          nameStyle: 'assoc',
          sizeShift: -1.5,
          vatShare: 0.02,
        }),
        form({
          code: '10',
          label: 'Keskinäinen kiinteistöosakeyhtiö',
          weight: 0.01,
          affix: 'Kiinteistö Oy',
          affixPosition: 'prefix',
          nameStyle: 'assoc',
          sizeShift: -1.5,
          vatShare: 0.1,
        }),
        form({ code: '5', label: 'Avoin yhtiö', weight: 0.06, affix: 'Ay', sizeShift: -0.5, vatShare: 0.4 }),
        form({
          code: '13',
          label: 'Kommandiittiyhtiö',
          weight: 0.12,
          affix: 'Ky',
          sizeShift: -0.5,
          vatShare: 0.45,
        }),
        form({ code: '14', label: 'Osuuskunta', weight: 0.012, affix: 'osk', vatShare: 0.4 }),
        form({ code: '18', label: 'Säätiö', weight: 0.005, affix: 'sr', nameStyle: 'assoc', vatShare: 0.1 }),
        form({
          code: '6',
          label: 'Aatteellinen yhdistys',
          weight: 0.15,
          affix: 'ry',
          nameStyle: 'assoc',
          sizeShift: -1.2,
          vatShare: 0.03,
        }),
        form({
          code: '19',
          label: 'Ulkomaisen elinkeinonharjoittajan sivuliike',
          weight: 0.01,
          affix: 'sivuliike Suomessa',
          vatShare: 0.6,
        }),
      ],
    },
  ],
  defaultRoles: board,
  names: {
    firstMale: words(`
Juha, Timo, Matti, Mikko, Jari, Kari, Antti, Markku, Jukka, Pekka, Mika, Hannu, Heikki, Petri,
Sami, Ville, Janne, Teemu, Tuomas, Lauri, Eero, Väinö, Ari, Jyrki
`),
    firstFemale: words(`
Anne, Tuula, Päivi, Anna, Riitta, Leena, Sari, Pirjo, Minna, Tiina, Hanna, Marjatta, Kaisa,
Johanna, Satu, Elina, Laura, Maarit, Heli, Sanna, Aino, Eeva, Kirsi, Sirpa
`),
    lastMale: words(`
Korhonen, Virtanen, Mäkinen, Nieminen, Mäkelä, Hämäläinen, Laine, Heikkinen, Koskinen, Järvinen,
Lehtonen, Lehtinen, Saarinen, Salminen, Heinonen, Niemi, Heikkilä, Kinnunen, Salonen, Turunen, Salo,
Laitinen, Tuominen, Rantanen, Karjalainen, Jokinen, Mattila, Savolainen, Lahtinen, Ahonen,
Hiltunen, Räsänen, Väisänen, Kärkkäinen, Lindholm, Söderström
`),
    lastFemale: [],
    stemHeads: words(`
Pohjan, Revon, Kuusi, Koivu, Honka, Tähti, Aalto, Kallio, Järvi, Meri, Lumi, Sini, Kulta, Kivi,
Tuuli, Ilta, Aamu, Kesä, Talvi, Tammi, Paju, Saari, Vaahtera, Kaisla
`),
    stemTails: words(`
tuli, valo, kallio, mäki, niemi, rinne, metsä, ranta, laakso, koski, lahti, harju, kumpu, polku
`),
    stemJoiner: '',
    business: {
      A: words('Maatila, Metsä, Puutarha'),
      B: words('Sora, Louhinta'),
      C: words('Konepaja, Metalli, Puu, Leipomo, Tuotanto'),
      D: words('Energia, Lämpö'),
      E: words('Ympäristö, Kierrätys'),
      F: words('Rakennus, Sähkö, LVI, Maalaus, Remontti, Kattotyö'),
      G: words('Kauppa, Tukku, Auto, Kaluste'),
      H: words('Kuljetus, Logistiikka, Taksi, Huolinta'),
      I: words('Ravintola, Kahvila, Majoitus, Catering'),
      J: words('IT, Digital, Media, Ohjelmistot, Data'),
      K: words('Rahoitus, Pääoma, Invest'),
      L: words('Kiinteistöt, Isännöinti, Vuokraus'),
      M: words('Konsultointi, Tilitoimisto, Asianajotoimisto, Arkkitehdit, Suunnittelu, Design'),
      N: words('Palvelut, Siivous, Vuokraamo, Vartiointi'),
      O: words('Palvelut'),
      P: words('Koulutus, Akatemia, Autokoulu'),
      Q: words('Hammaslääkäri, Fysioterapia, Lääkärikeskus, Hoiva'),
      R: words('Studio, Urheilu, Musiikki, Taide'),
      S: words('Parturi-Kampaamo, Kauneushoitola, Palvelu'),
      T: words('Koti'),
      U: words('Edustusto'),
      _: words('Yhtiöt, Group, Palvelut'),
    },
    association: words('seura, kerho, yhdistys, kuoro, säätiö, urheiluseura'),
    streets: words(`
Mannerheimintie, Hämeenkatu, Kauppakatu, Teollisuuskatu, Koulukatu, Rantatie, Asemakatu,
Puistokatu, Kirkkokatu, Myllytie, Aleksanterinkatu, Satamakatu, Tehtaankatu, Koivutie, Kuusitie,
Metsätie, Rautatienkatu, Keskuskatu, Torikatu, Pajatie
`),
    templates: {
      org: templates({ '{stem}': 0.3, '{biz} {last}': 0.3, '{stem} {biz}': 0.2, '{town} {biz}': 0.2 }),
      person: templates({ '{first} {last}': 1 }),
      assoc: templates({ '{stem}': 0.5, '{stem}-{assoc}': 0.5 }),
      housing: templates({ '{street} {nr}': 1 }),
    },
  },
  contacts: {
    published: { email: 0.06, www: 0.3, tel: 0.08, mob: 0.05 },
    mailboxes: ['info', 'toimisto', 'asiakaspalvelu', 'myynti'],
    tlds: tlds({ fi: 0.85, com: 0.15 }),
    mobile: [digits('+358 40 ### ####', 0.6), digits('+358 50 ### ####', 0.4)],
    landline: [digits('+358 9 #### ####')],
  },
  clusters: [
    { names: ['Helsinki'], share: 0.2 },
    { names: ['Espoo', 'Vantaa', 'Kauniainen'], share: 0.1 },
    { names: ['Tampere'], share: 0.05 },
    { names: ['Turku'], share: 0.04 },
    { names: ['Oulu'], share: 0.035 },
  ],
  ...nordicPlaces(digits('#####')),
};
