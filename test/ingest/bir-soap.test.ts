import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { daneRecords, resultText, soapEnvelope } from '../../ingest/harvest/pl/bir-soap.ts';
import { birLeafNames, birLeaves, createBirMacros } from '../../ingest/official/pl/bir-sql.ts';
import { composeBirAnswer } from './helpers/pl-fakes.ts';

/*
 * The harvester reads BIR's answers with an XML reader (fast-xml-parser): the recorded real answers of
 * test/fixtures/real/PL/bir (SOURCES.md there) as MTOM multipart or plain XML, their double escaping, the
 * `&#xD;` character references, and a value holding escaped markup.
 */

const BIR = fileURLToPath(new URL('../fixtures/real/PL/bir/', import.meta.url));
const answer = (name: string): string => fs.readFileSync(`${BIR}${name}`, 'utf8');

describe('resultText: the result of an answer', () => {
  it('reads the session id of the recorded Zaloguj answer (indented MTOM part headers)', () => {
    expect(resultText(answer('Zaloguj-gusapi.mtom'), 'Zaloguj')).toBe('c47xb5n78ppgc9hks85f');
  });

  it('unescapes a report once into its inner document, the &#xD; references as CR', () => {
    const inner = resultText(answer('BIR11OsPrawna-010001345-pzu.mtom'), 'DanePobierzPelnyRaport')!;
    expect(inner.startsWith('<root>\r\n  <dane>\r\n    <praw_regon9>010001345</praw_regon9>\r\n')).toBe(true);
    expect(inner.endsWith('</dane>\r\n</root>')).toBe(true);
    // Another operation's result is not this answer's.
    expect(resultText(answer('BIR11OsPrawna-010001345-pzu.mtom'), 'DaneSzukajPodmioty')).toBeNull();
  });

  it("'' for an empty result, null for no result, HTML or no XML at all", () => {
    expect(
      resultText(composeBirAnswer('DaneSzukajPodmioty', null).toString('utf8'), 'DaneSzukajPodmioty'),
    ).toBe('');
    expect(resultText(composeBirAnswer('GetValue', '7').toString('utf8'), 'GetValue')).toBe('7');
    expect(resultText('<html><body>503 Service Unavailable</body></html>', 'Zaloguj')).toBeNull();
    expect(resultText('not xml at all <', 'Zaloguj')).toBeNull();
    expect(resultText('', 'Zaloguj')).toBeNull();
  });

  it('takes the envelope out of its MTOM part whatever the line ends', () => {
    const pzu = answer('BIR11OsPrawna-010001345-pzu.mtom');
    expect(pzu).toContain('\r\n'); // recorded with CRLF around the part
    const envelope = soapEnvelope(pzu);
    expect(envelope.startsWith('<s:Envelope ')).toBe(true);
    expect(envelope.trimEnd().endsWith('</s:Envelope>')).toBe(true);
    expect(soapEnvelope(envelope)).toBe(envelope);
  });
});

describe('daneRecords: the records of an inner document', () => {
  it('the recorded search answer: a sole trader, a name with quotes, empty elements as ""', () => {
    const inner = resultText(answer('DaneSzukajPodmioty-nip-5790004488.mtom'), 'DaneSzukajPodmioty')!;
    expect(daneRecords(inner)).toEqual([
      {
        Regon: '810528352',
        Nip: '5790004488',
        StatusNip: '',
        Nazwa: 'Przedsiębiorstwo Handlowo Usługowe "ELRO" Elżbieta Pufal',
        Wojewodztwo: 'POMORSKIE',
        Powiat: 'malborski',
        Gmina: 'Malbork',
        Miejscowosc: 'Grobelno',
        KodPocztowy: '82-200',
        Ulica: '',
        NrNieruchomosci: '8',
        NrLokalu: '',
        Typ: 'F',
        SilosID: '1',
        DataZakonczeniaDzialalnosci: '',
        MiejscowoscPoczty: '',
      },
    ]);
  });

  it('a value holding markup escaped twice is read as that markup (GUS test environment, DaneSzukaj)', () => {
    const inner = resultText(answer('DaneSzukaj-testenv-regonlink.mtom'), 'DaneSzukaj')!;
    const [record, ...rest] = daneRecords(inner);
    expect(rest).toEqual([]);
    expect(record).toMatchObject({
      Regon: '01081624800000',
      RegonLink: `<a href='javascript:danePobierzPelnyRaport("01081624800000","DaneRaportPrawnaPubl", 0);'>010816248</a>`,
      Nazwa: 'POLSKO-JAPOŃSKA AKADEMIA TECHNIK KOMPUTEROWYCH',
      Gmina: 'Śródmieście',
      KodPocztowy: '02-008',
      Typ: 'P',
      SilosID: '6',
    });
  });

  it('several records: the recorded PKD rows and the daily bulk report', () => {
    const pkd = daneRecords(answer('BIR11OsPrawnaPkd-inner-gusapi.xml'));
    expect(pkd.map((r) => [r['praw_pkdKod'], r['praw_pkdPrzewazajace']])).toEqual([
      ['7430Z', '0'],
      ['7420Z', '0'],
      ['7410Z', '1'],
    ]);
    expect(pkd[2]?.['praw_pkdNazwa']).toBe('DZIAŁALNOŚĆ W ZAKRESIE SPECJALISTYCZNEGO PROJEKTOWANIA');
    expect(daneRecords(answer('DanePobierzRaportZbiorczy-inner-gusapi.xml')).map((r) => r['regon'])).toEqual([
      '022399999',
      '147210456',
      '243544401',
      '341568222',
    ]);
    expect(daneRecords('')).toEqual([]);
    expect(daneRecords('<root />')).toEqual([]);
  });

  it("the PZU report's fields equal what the ingest's SQL pass reads from the same bytes", async () => {
    const text = answer('BIR11OsPrawna-010001345-pzu.mtom');
    const [record] = daneRecords(resultText(text, 'DanePobierzPelnyRaport')!);
    const instance = await DuckDBInstance.create(':memory:');
    const conn = await instance.connect();
    try {
      await createBirMacros(conn);
      const leaves = birLeaves('$text');
      // Each leaf `&lt;name&gt;value&lt;/` (as stored) split into its name and its value unescaped.
      const reader = await conn.runAndReadAll(
        `SELECT list_transform(${birLeafNames(leaves)}, n -> n[5:]) AS names,
                list_transform(${leaves}, x -> bir_value(x[strpos(x, '&gt;') + 4:-6])) AS vals`,
        { text },
      );
      const [names, vals] = reader.getRowsJS()[0] as [string[], (string | null)[]];
      const bySql = Object.fromEntries(names.map((n, i) => [n, vals[i] ?? '']));
      expect(Object.keys(bySql).length).toBeGreaterThan(30);
      // The SQL pass skips empty elements (`<x />`); every element it reads, the XML reader reads alike.
      expect(Object.fromEntries(Object.entries(record!).filter(([n]) => n in bySql))).toEqual(bySql);
      expect(record!['praw_nazwa']).toBe('POWSZECHNY ZAKŁAD UBEZPIECZEŃ SPÓŁKA AKCYJNA');
      expect(record!['praw_numerWRejestrzeEwidencji']).toBe('0000009831');
      expect(record!['praw_statusNip']).toBe('');
    } finally {
      conn.closeSync();
      instance.closeSync();
    }
  });

  it('the recorded error answer: ErrorCode 4 with its Polish message', () => {
    const inner = resultText(answer('BIR11OsPrawna-810528352-error4.mtom'), 'DanePobierzPelnyRaport')!;
    expect(daneRecords(inner)).toEqual([
      {
        ErrorCode: '4',
        ErrorMessagePl: 'Nie znaleziono wpisu dla podanych kryteriów wyszukiwania.',
        ErrorMessageEn: 'No data found for the specified search criteria.',
        pRegon: '810528352',
        Typ_podmiotu: 'F',
        Raport: 'BIR11OsPrawna',
      },
    ]);
  });
});
