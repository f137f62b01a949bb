import { EntityDecoder } from '@nodable/entities';
import { XMLParser } from 'fast-xml-parser';

/*
 * The SOAP side of REGON BIR 1.1 (GUS, registry-formats.md 6.2): SOAP 1.2 with WS-Addressing, the session id
 * in an HTTP header `sid`, answers as MTOM multipart (`--uuid:…` parts around the envelope) whose result is
 * an escaped XML document `<root><dane>…</dane></root>`. Only what the harvester itself needs is read here
 * (the session id, search hits, message codes), with an XML reader; the stored answers stay as received and
 * are read by the ingest's SQL pass (ingest/official/pl/bir-sql.ts).
 */

export const BIR_NS = 'http://CIS/BIR/PUBL/2014/07';
const BIR_GETVALUE_NS = 'http://CIS/BIR/2014/07';

export type BirOperation =
  | 'Zaloguj'
  | 'Wyloguj'
  | 'DaneSzukajPodmioty'
  | 'DanePobierzPelnyRaport'
  | 'DanePobierzRaportZbiorczy'
  | 'GetValue';

export function soapAction(op: BirOperation): string {
  return op === 'GetValue' ? `${BIR_GETVALUE_NS}/IUslugaBIR/GetValue` : `${BIR_NS}/IUslugaBIRzewnPubl/${op}`;
}

const esc = (s: string): string =>
  s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');

/** A request envelope; `body` is the operation element. */
export function envelope(url: string, op: BirOperation, body: string): string {
  return (
    `<soap:Envelope xmlns:soap="http://www.w3.org/2003/05/soap-envelope" xmlns:ns="${BIR_NS}" xmlns:dat="${BIR_NS}/DataContract">` +
    `<soap:Header xmlns:wsa="http://www.w3.org/2005/08/addressing"><wsa:To>${esc(url)}</wsa:To>` +
    `<wsa:Action>${soapAction(op)}</wsa:Action></soap:Header><soap:Body>${body}</soap:Body></soap:Envelope>`
  );
}

export const birBodies = {
  login: (key: string) => `<ns:Zaloguj><ns:pKluczUzytkownika>${esc(key)}</ns:pKluczUzytkownika></ns:Zaloguj>`,
  logout: (sid: string) =>
    `<ns:Wyloguj><ns:pIdentyfikatorSesji>${esc(sid)}</ns:pIdentyfikatorSesji></ns:Wyloguj>`,
  /** `field` is one of Krs, Krsy, Nip, Nipy, Regon, Regony9zn, Regony14zn; batches are comma-separated. */
  search: (field: string, ids: readonly string[]) =>
    `<ns:DaneSzukajPodmioty><ns:pParametryWyszukiwania><dat:${field}>${esc(ids.join(','))}</dat:${field}></ns:pParametryWyszukiwania></ns:DaneSzukajPodmioty>`,
  report: (regon: string, report: string) =>
    `<ns:DanePobierzPelnyRaport><ns:pRegon>${esc(regon)}</ns:pRegon><ns:pNazwaRaportu>${esc(report)}</ns:pNazwaRaportu></ns:DanePobierzPelnyRaport>`,
  bulk: (date: string, report: string) =>
    `<ns:DanePobierzRaportZbiorczy><ns:pDataRaportu>${esc(date)}</ns:pDataRaportu><ns:pNazwaRaportu>${esc(report)}</ns:pNazwaRaportu></ns:DanePobierzRaportZbiorczy>`,
  getValue: (name: string) =>
    `<g:GetValue xmlns:g="${BIR_GETVALUE_NS}"><g:pNazwaParametru>${esc(name)}</g:pNazwaParametru></g:GetValue>`,
};

/**
 * The XML reader of the answers. Both documents (the envelope, then the inner `<root>` its result carries
 * as escaped text) are read with fast-xml-parser: namespace prefixes dropped (`s:Envelope`, a default
 * namespace on the response), text kept as written (a REGON's leading zero, a KRS number's zeros), the five
 * XML entities and numeric character references decoded (BIR writes `&#xD;` before every line end), and
 * entities a DOCTYPE might declare held to small limits.
 */
function xmlReader(opts: { trim: boolean; arrays?: readonly string[] }): XMLParser {
  return new XMLParser({
    ignoreAttributes: true,
    removeNSPrefix: true,
    parseTagValue: false,
    trimValues: opts.trim,
    ignoreDeclaration: true,
    ignorePiTags: true,
    entityDecoder: new EntityDecoder({
      numericAllowed: true,
      limit: { maxTotalExpansions: 1_000, maxExpandedLength: 100_000 },
    }),
    ...(opts.arrays ? { isArray: (name: string) => opts.arrays!.includes(name) } : {}),
  });
}

const envelopeReader = xmlReader({ trim: false });
const innerReader = xmlReader({ trim: true, arrays: ['dane'] });

/** `node[name]` when `node` is an element read as an object; undefined otherwise. */
function child(node: unknown, name: string): unknown {
  return typeof node === 'object' && node !== null && !Array.isArray(node)
    ? (node as Record<string, unknown>)[name]
    : undefined;
}

/** Reads `xml`, or undefined when it is not XML the reader can follow (an HTML error page may be neither). */
function read(reader: XMLParser, xml: string): unknown {
  try {
    return reader.parse(xml) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * The SOAP envelope of an answer: the first part of an MTOM multipart body (`--uuid:…` boundary line, part
 * headers, a blank line, the envelope, the closing boundary), or the body itself when it is plain SOAP.
 */
export function soapEnvelope(answer: string): string {
  const body = answer.trimStart();
  if (!body.startsWith('--')) return answer;
  const firstLineEnd = body.indexOf('\n');
  if (firstLineEnd === -1) return '';
  const boundary = body.slice(0, firstLineEnd).trim();
  const close = body.indexOf(boundary, firstLineEnd);
  const lines = body.slice(firstLineEnd + 1, close === -1 ? undefined : close).split('\n');
  // The part's headers end at the first blank line (the recorded answers indent them, or end them in CRLF).
  const blank = lines.findIndex((line) => line.trim() === '');
  return blank === -1 ? '' : lines.slice(blank + 1).join('\n');
}

/**
 * The text of `<{op}Result>` in an answer (MTOM or plain SOAP), read as XML: for the data operations the
 * inner XML document. `''` for an empty result (`<XResult/>` or no text), null when the answer holds no
 * result element at all (a fault, an HTML error page, not XML).
 */
export function resultText(answer: string, op: BirOperation | 'DaneSzukaj'): string | null {
  const body = child(child(read(envelopeReader, soapEnvelope(answer)), 'Envelope'), 'Body');
  const result = child(child(body, `${op}Response`), `${op}Result`);
  if (typeof result === 'string') return result;
  // An element with attributes or comments around its text is read as an object holding `#text`.
  if (typeof result === 'object' && result !== null) {
    const text = child(result, '#text');
    return typeof text === 'string' ? text : '';
  }
  return null;
}

/**
 * The `<dane>` records of an inner `<root>` document as field maps (element names as written, values
 * trimmed, an empty element `<x />` as ''); fields that hold elements rather than text are left out.
 */
export function daneRecords(inner: string): Record<string, string>[] {
  const doc = read(innerReader, inner);
  const root = typeof doc === 'object' && doc !== null ? Object.values(doc)[0] : undefined;
  const dane = child(root, 'dane');
  const list: unknown[] = Array.isArray(dane) ? dane : [];
  return list.map((rec) => {
    const fields: Record<string, string> = {};
    if (typeof rec !== 'object' || rec === null) return fields;
    for (const [name, value] of Object.entries(rec)) if (typeof value === 'string') fields[name] = value;
    return fields;
  });
}
