import { execFileSync } from 'node:child_process';
import { randomBytes, createHash } from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { Agent, getGlobalDispatcher, setGlobalDispatcher, type Dispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { StartedServer } from '../../src/server.ts';
import { REDIRECT, connectClient, signIn, signedUpUser, startOAuthServer } from './oauth-helpers.ts';

/**
 * Issue 29: registration by client ID metadata document (the current MCP authorization spec). The client's
 * id is an https URL of a JSON document describing it; the server fetches and checks that document instead
 * of a registration. The documents are served over TLS on loopback, which the development-mode server
 * accepts (src/oauth/authorization-server.ts); this process trusts the test's own certificate.
 */

const PRICE = 0.05;

let server: StartedServer;
let mcpUrl: URL;
let close: () => Promise<void>;
let tmp: string;
let documents: https.Server;
let docOrigin: string;
let previousDispatcher: Dispatcher | undefined;
let previousCAs: string[] | undefined;
/** Node's TLS with the default-CA functions of Node 22.15+ (this project's @types/node may not declare them). */
const nodeTls = tls as typeof tls & {
  getCACertificates?: (kind: 'default') => string[];
  setDefaultCACertificates?: (certs: string[]) => void;
};
/** What the document server answers per path: a body and its content type. */
const served = new Map<string, { body: string; type: string }>();

function clientDocument(url: string, extra: Record<string, unknown> = {}) {
  return JSON.stringify({
    client_id: url,
    client_name: 'Document agent',
    redirect_uris: [REDIRECT],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    ...extra,
  });
}

/** Serves `body` at a fresh path and returns the URL, which is the client's id. */
function serve(body: (url: string) => string, type = 'application/json'): string {
  const at = `/clients/${randomBytes(6).toString('hex')}.json`;
  const url = `${docOrigin}${at}`;
  served.set(at, { body: body(url), type });
  return url;
}

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-test-cimd-'));
  const key = path.join(tmp, 'key.pem');
  const cert = path.join(tmp, 'cert.pem');
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1'].concat([
      '-keyout',
      key,
      '-out',
      cert,
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ]),
    { stdio: 'ignore' },
  );
  documents = https.createServer({ key: fs.readFileSync(key), cert: fs.readFileSync(cert) }, (req, res) => {
    const doc = served.get(req.url ?? '');
    if (!doc) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': doc.type, 'cache-control': 'max-age=300' }).end(doc.body);
  });
  await new Promise<void>((resolve) => documents.listen(0, '127.0.0.1', resolve));
  docOrigin = `https://127.0.0.1:${(documents.address() as AddressInfo).port}`;
  // The documents' certificate is the test's own: trusted by this process's fetch, as a real client's
  // certificate is trusted through the system's CAs. Where Node can add to its default CAs (22.15+, 24, 26)
  // that is the way: its fetch bundles its own undici (8 on Node 26), which cannot take a dispatcher made by
  // this project's undici 6. On Node 20 that dispatcher is the way.
  const trust = fs.readFileSync(cert, 'utf8');
  if (nodeTls.setDefaultCACertificates && nodeTls.getCACertificates) {
    previousCAs = nodeTls.getCACertificates('default');
    nodeTls.setDefaultCACertificates([...previousCAs, trust]);
  } else {
    previousDispatcher = getGlobalDispatcher();
    setGlobalDispatcher(new Agent({ connect: { ca: trust } }));
  }
  ({ server, close } = await startOAuthServer(inject('testDataDir'), PRICE));
  mcpUrl = new URL(`${server.url}/mcp`);
}, 180_000);

afterAll(async () => {
  await close?.();
  if (previousDispatcher) setGlobalDispatcher(previousDispatcher);
  if (previousCAs) nodeTls.setDefaultCACertificates?.(previousCAs);
  documents?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

/** The authorization request a client opens in the browser; the server's answer, not followed. */
async function authorize(clientId: string, redirectUri = REDIRECT) {
  const url = new URL(`${server.url}/oauth/authorize`);
  url.search = new URLSearchParams({
    client_id: clientId,
    response_type: 'code',
    redirect_uri: redirectUri,
    scope: 'mcp:data',
    resource: mcpUrl.href,
    code_challenge: createHash('sha256').update('a verifier of enough length for pkce').digest('base64url'),
    code_challenge_method: 'S256',
  }).toString();
  const res = await fetch(url, { redirect: 'manual' });
  return { status: res.status, location: res.headers.get('location'), body: await res.text() };
}

describe('client ID metadata documents', () => {
  it('the server says it takes them', async () => {
    const as = (await (await fetch(`${server.url}/.well-known/oauth-authorization-server`)).json()) as Record<
      string,
      unknown
    >;
    expect(as['client_id_metadata_document_supported']).toBe(true);
  });

  it('the SDK client connects with its document URL as its id, without registering, and its calls are charged', async () => {
    const accountId = await signedUpUser(server, 'cimd-user@test.local');
    const docUrl = serve((url) => clientDocument(url));
    const { provider, kept, pages } = await signIn(mcpUrl, 'cimd-user@test.local', {
      clientMetadataUrl: docUrl,
    });
    // The consent page names the client as its document does.
    expect(pages.some((p) => p.includes('Connect Document agent?'))).toBe(true);
    expect((kept['client'] as { client_id: string }).client_id).toBe(docUrl);
    // Nothing was registered: a document's client is not stored, it is fetched (and cached).
    const registered = await server.wallet.store.get<{ n: number }>(
      "SELECT COUNT(*) AS n FROM oauth_records WHERE model = 'Client'",
    );
    expect(Number(registered?.n)).toBe(0);
    const grant = await server.wallet.store.get<{ client_id: string; client_name: string }>(
      'SELECT client_id, client_name FROM oauth_grants WHERE account_id = ?',
      [accountId],
    );
    expect(grant).toEqual({ client_id: docUrl, client_name: 'Document agent' });

    const client = await connectClient(mcpUrl, provider);
    try {
      const before = (await server.wallet.balance({ accountId })).balance;
      const result = (await client.callTool({
        name: 'search_companies',
        arguments: { country: 'EE', page_size: 2 },
      })) as CallToolResult;
      expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
      expect(before - (await server.wallet.balance({ accountId })).balance).toBeCloseTo(2 * PRICE, 9);
    } finally {
      await client.close();
    }
  });

  it('refuses a redirect_uri that the document does not list', async () => {
    const docUrl = serve((url) => clientDocument(url));
    const res = await authorize(docUrl, 'http://127.0.0.1:9/elsewhere');
    expect(res.status).toBe(400);
    expect(res.location).toBeNull();
    expect(res.body).toContain('redirect_uri');
  });

  it('refuses a document whose client_id is not its own URL', async () => {
    const other = serve((url) => clientDocument(url));
    const docUrl = serve(() => clientDocument(other));
    const res = await authorize(docUrl);
    expect(res.status).toBe(400);
    expect(res.location).toBeNull();
    expect(res.body).toContain('client_id metadata document client_id does not match');
  });

  it('refuses a document that is not JSON', async () => {
    const docUrl = serve(() => '<html><body>a client</body></html>', 'text/html');
    const res = await authorize(docUrl);
    expect(res.status).toBe(400);
    expect(res.location).toBeNull();
    expect(res.body).toContain('client_id metadata document fetch failed');
  });

  it('refuses a document over 5 KiB', async () => {
    const docUrl = serve((url) => clientDocument(url, { padding: 'x'.repeat(6000) }));
    // The same document without the padding is taken: the size alone is refused.
    const small = serve((url) => clientDocument(url));
    expect((await authorize(small)).status).toBe(303);
    const res = await authorize(docUrl);
    expect(res.status).toBe(400);
    expect(res.location).toBeNull();
    expect(res.body).toContain('client_id metadata document fetch failed');
  });

  it('refuses a client_id that is a plain http URL', async () => {
    const docUrl = serve((url) => clientDocument(url)).replace('https:', 'http:');
    const res = await authorize(docUrl);
    expect(res.status).toBe(400);
    expect(res.body).toContain('invalid_client');
  });
});
