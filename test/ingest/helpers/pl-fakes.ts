import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

/*
 * Loopback fakes of the three Polish services (a real node:http server on 127.0.0.1) that answer with the
 * recorded real answers in test/fixtures/real/PL (SOURCES.md there) and with the services' real error
 * shapes: KRS 404 problem+json for a number without an extract, 429 with Retry-After, a connection dropped
 * mid-answer; BIR session expiry (an empty result, then GetValue KomunikatKod 7); CEIDG 401 without a token.
 * Where no recorded answer exists the fake composes one from recorded parts, as SOURCES.md says.
 */

export const REAL_PL = path.join(import.meta.dirname, '..', '..', 'fixtures', 'real', 'PL');
const real = (...p: string[]) => fs.readFileSync(path.join(REAL_PL, ...p));

/** The three recorded KRS extracts, by KRS number. */
export const KRS_EXTRACTS: Record<string, string> = {
  '0000405063': 'OdpisAktualny-P-0000405063-easysolar.json',
  '0000413516': 'OdpisAktualny-P-0000413516-swlex.json',
  '0001268296': 'OdpisAktualny-P-0001268296.json',
};
export const BIR_SID = 'c47xb5n78ppgc9hks85f'; // the session id in the recorded Zaloguj answer
export const ELRO_REGON = '810528352';
const MTOM_TYPE =
  'multipart/related; type="application/xop+xml"; start="<http://tempuri.org/0>"; boundary="uuid:18e18dae-c6e6-44ff-bd8d-55fd420f328a+id=7771363"; start-info="application/soap+xml"';

/**
 * An answer composed from the recorded PZU report answer: its MTOM frame and envelope, with the operation
 * and the (escaped) result swapped. Used only where no recorded answer of that operation exists.
 */
export function composeBirAnswer(op: string, resultInnerEscaped: string | null): Buffer {
  const pzu = real('bir', 'BIR11OsPrawna-010001345-pzu.mtom').toString('utf8');
  const result =
    resultInnerEscaped === null ? `<${op}Result />` : `<${op}Result>${resultInnerEscaped}</${op}Result>`;
  return Buffer.from(
    pzu
      .replace(/<DanePobierzPelnyRaportResult>[\s\S]*<\/DanePobierzPelnyRaportResult>/, result)
      .replaceAll('DanePobierzPelnyRaportResponse', `${op}Response`)
      .replace(
        `xmlns="http://CIS/BIR/PUBL/2014/07"><${op}Result`,
        op === 'GetValue'
          ? `xmlns="http://CIS/BIR/2014/07"><${op}Result`
          : `xmlns="http://CIS/BIR/PUBL/2014/07"><${op}Result`,
      ),
    'utf8',
  );
}

/** The recorded "not found" report answer's inner document, escaped as inside the SOAP result. */
function notFoundInner(): string {
  const err4 = real('bir', 'BIR11OsPrawna-810528352-error4.mtom').toString('utf8');
  return /<DanePobierzPelnyRaportResult>([\s\S]*)<\/DanePobierzPelnyRaportResult>/.exec(err4)![1]!;
}

/** The CEIDG v3 list page and detail of the one sole trader the recorded BIR search answer names. */
function ceidgElro(base: string) {
  // Shape: CEIDG v3 as documented from the live API (SOURCES.md); values: the recorded BIR search answer.
  const firma = {
    id: 'ELRO-810528352',
    nazwa: 'Przedsiębiorstwo Handlowo Usługowe "ELRO" Elżbieta Pufal',
    adresDzialalnosci: {
      budynek: '8',
      miasto: 'Grobelno',
      kod: '82-200',
      gmina: 'Malbork',
      powiat: 'malborski',
      wojewodztwo: 'POMORSKIE',
      kraj: 'PL',
    },
    wlasciciel: { imie: 'Elżbieta', nazwisko: 'Pufal', nip: '5790004488', regon: ELRO_REGON },
    dataRozpoczecia: null,
    status: 'AKTYWNY',
    link: `${base}/api/ceidg/v3/firma/ELRO-810528352`,
  };
  return { firma };
}

export interface FakeOptions {
  /** Numbers whose first P request answers 429 (Retry-After: 0). */
  throttle?: Set<string>;
  /** Numbers whose first P request has its connection dropped mid-answer. */
  drop?: Set<string>;
  /** Data calls after which the BIR session expires once (empty result, KomunikatKod 7). */
  expireBirAfter?: number;
  /** Day → KRS numbers of the change list (as the feed writes them, unpadded). */
  bulletin?: Record<string, string[]>;
  /** Called with each log line as the request arrives (a test aborts a harvest from here). */
  onRequest?: (line: string) => void;
}

export interface PlFakes {
  url: string;
  /** Every request, in order: `GET /api/krs/...` or `POST bir:<operation>`. */
  log: string[];
  close(): Promise<void>;
}

export async function startPlFakes(opts: FakeOptions = {}): Promise<PlFakes> {
  const lines: string[] = [];
  const log = { push: (l: string) => (lines.push(l), opts.onRequest?.(l)) };
  const throttled = new Set<string>();
  const dropped = new Set<string>();
  let birCalls = 0;
  let expired = false;
  let expiredOnce = false;
  let base = '';

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', base);
      const body = Buffer.concat(chunks).toString('utf8');
      const send = (
        status: number,
        type: string | null,
        data: Buffer | string,
        headers: Record<string, string> = {},
      ) => {
        res.writeHead(status, { ...(type ? { 'content-type': type } : {}), ...headers });
        res.end(data);
      };
      // KRS Open API
      let m = /^\/api\/krs\/OdpisAktualny\/(\d{10})$/.exec(url.pathname);
      if (m) {
        const krs = m[1]!;
        const register = url.searchParams.get('rejestr');
        log.push(`GET krs ${krs} ${register}`);
        if (register === 'P' && opts.throttle?.has(krs) && !throttled.has(krs)) {
          throttled.add(krs);
          return send(429, null, '', { 'retry-after': '0' });
        }
        if (register === 'P' && opts.drop?.has(krs) && !dropped.has(krs)) {
          dropped.add(krs);
          res.writeHead(200, {
            'content-type': 'application/json; charset=utf-8',
            'content-length': '50000',
          });
          res.write(real('krs', KRS_EXTRACTS[krs] ?? 'not-found-404.json').subarray(0, 100));
          return res.socket?.destroy();
        }
        if (register === 'P' && KRS_EXTRACTS[krs]) {
          return send(200, 'application/json; charset=utf-8', real('krs', KRS_EXTRACTS[krs]));
        }
        return send(404, 'application/problem+json; charset=utf-8', real('krs', 'not-found-404.json'));
      }
      m = /^\/api\/krs\/Biuletyn\/(\d{4}-\d{2}-\d{2})$/.exec(url.pathname);
      if (m) {
        log.push(`GET krs-biuletyn ${m[1]}`);
        return send(200, 'application/json; charset=utf-8', JSON.stringify(opts.bulletin?.[m[1]!] ?? []));
      }
      // CEIDG v3
      if (url.pathname.startsWith('/api/ceidg/v3/')) {
        log.push(`GET ceidg ${url.pathname}${url.search}`);
        if (req.headers.authorization !== 'Bearer test-token')
          return send(401, 'application/json', '{"message":"Unauthorized"}');
        const { firma } = ceidgElro(base);
        if (url.pathname === '/api/ceidg/v3/firmy') {
          const page = Number(url.searchParams.get('page') ?? '0');
          // No hits: 204 without a body. The last page's links.next is the page itself, as the live
          // service answers (test/fixtures/real/PL/SOURCES.md, "CEIDG").
          if (page > 0) return send(204, 'application/json', '');
          const self = `${base}${url.pathname}${url.search}`;
          return send(
            200,
            'application/json; charset=utf-8',
            JSON.stringify({ firmy: [firma], count: 1, links: { next: self, self } }),
          );
        }
        if (url.pathname === `/api/ceidg/v3/firma/${firma.id}`) {
          return send(200, 'application/json; charset=utf-8', JSON.stringify({ firma: [firma] }));
        }
        return send(404, 'application/json', '{"message":"Not Found"}');
      }
      // REGON BIR 1.1
      if (url.pathname === '/bir') {
        const op =
          /<(?:\w+:)?(Zaloguj|Wyloguj|DaneSzukajPodmioty|DanePobierzPelnyRaport|DanePobierzRaportZbiorczy|GetValue)[\s>]/.exec(
            body,
          )?.[1] ?? '?';
        log.push(`POST bir:${op}`);
        if (op === 'Zaloguj') {
          expired = false;
          return send(200, MTOM_TYPE, real('bir', 'Zaloguj-gusapi.mtom'));
        }
        if (op === 'Wyloguj') return send(200, MTOM_TYPE, composeBirAnswer('Wyloguj', 'true'));
        if (op === 'GetValue') return send(200, MTOM_TYPE, composeBirAnswer('GetValue', expired ? '7' : '0'));
        if (req.headers['sid'] !== BIR_SID) expired = true;
        birCalls++;
        if (!expiredOnce && opts.expireBirAfter !== undefined && birCalls > opts.expireBirAfter) {
          expiredOnce = true;
          expired = true;
        }
        if (expired) return send(200, MTOM_TYPE, composeBirAnswer(op, null));
        if (op === 'DanePobierzRaportZbiorczy') {
          const inner = real('bir', 'DanePobierzRaportZbiorczy-inner-gusapi.xml').toString('utf8');
          const escaped = inner.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
          return send(200, MTOM_TYPE, composeBirAnswer(op, escaped));
        }
        if (op === 'DaneSzukajPodmioty') {
          if (body.includes(ELRO_REGON))
            return send(200, MTOM_TYPE, real('bir', 'DaneSzukajPodmioty-nip-5790004488.mtom'));
          return send(200, MTOM_TYPE, composeBirAnswer(op, notFoundInner()));
        }
        // Every report of the one unit found: the recorded "not found" report answer.
        return send(200, MTOM_TYPE, real('bir', 'BIR11OsPrawna-810528352-error4.mtom'));
      }
      send(404, 'text/plain', 'no such fake route');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    log: lines,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
