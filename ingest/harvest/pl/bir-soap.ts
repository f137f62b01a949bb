/*
 * The SOAP side of REGON BIR 1.1 (GUS, registry-formats.md 6.2): SOAP 1.2 with WS-Addressing, the session id
 * in an HTTP header `sid`, answers as MTOM multipart (`--uuid:…` parts around the envelope) whose result is
 * an escaped XML document `<root><dane>…</dane></root>`. Only what the harvester itself needs is parsed
 * here (the session id, search hits, message codes); the stored answers stay as received.
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

export function xmlUnescape(s: string): string {
  return s
    .replace(/&#x([0-9a-f]+);/gi, (_, h: string) => String.fromCodePoint(parseInt(h, 16)))
    .replace(/&#(\d+);/g, (_, d: string) => String.fromCodePoint(Number(d)))
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&quot;', '"')
    .replaceAll('&apos;', "'")
    .replaceAll('&amp;', '&');
}

/**
 * The text of `<{op}Result>` in an answer (MTOM or plain SOAP), unescaped once: for the data operations
 * the inner XML document. `''` for an empty result (`<XResult/>` or no text), null when the answer holds
 * no result element at all (a fault, an HTML error page).
 */
export function resultText(answer: string, op: BirOperation): string | null {
  const full = new RegExp(`<(?:\\w+:)?${op}Result(?:\\s[^>]*)?>([\\s\\S]*?)</(?:\\w+:)?${op}Result>`).exec(
    answer,
  );
  if (full) return xmlUnescape(full[1] ?? '');
  if (new RegExp(`<(?:\\w+:)?${op}Result(?:\\s[^>]*)?/>`).test(answer)) return '';
  return null;
}

/** The `<dane>` records of an inner `<root>` document as field maps (element names as written). */
export function daneRecords(inner: string): Record<string, string>[] {
  const out: Record<string, string>[] = [];
  for (const m of inner.matchAll(/<dane>([\s\S]*?)<\/dane>/g)) {
    const rec: Record<string, string> = {};
    for (const f of (m[1] ?? '').matchAll(/<(\w+)>([^<]*)<\/\1>/g))
      rec[f[1]!] = xmlUnescape(f[2] ?? '').trim();
    out.push(rec);
  }
  return out;
}
