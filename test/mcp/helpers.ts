import type { AddressInfo } from 'node:net';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/client';
import type { FastifyInstance } from 'fastify';

/** Listens on an ephemeral loopback port; the MCP client talks real HTTP to it. */
export async function listen(app: FastifyInstance): Promise<URL> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  return new URL(`http://127.0.0.1:${port}/mcp`);
}

/**
 * The SDK's own client over Streamable HTTP, sending the key as an agent's MCP configuration would. `auto`
 * negotiates as a current client does (`server/discover`, the 2026-07-28 revision); `legacy` opens with the
 * 2025 `initialize` handshake, as most clients in use still do.
 */
export async function connectClient(url: URL, key: string, era: 'auto' | 'legacy' = 'auto'): Promise<Client> {
  const client = new Client(
    { name: 'regdata-test', version: '1.0.0' },
    { versionNegotiation: { mode: era } },
  );
  const transport = new StreamableHTTPClientTransport(url, {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
  });
  await client.connect(transport);
  return client;
}

/** A successful call's structured result (the test fails with the tool's text when it is an error). */
export async function callOk(client: Client, name: string, args: Record<string, unknown>) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  return result;
}

export interface ToolFailure {
  status: number;
  detail: unknown;
}

/** A tool error's `{status, detail}` (the text of an isError result). */
export async function callFail(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<ToolFailure> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (!result.isError) throw new Error(`${name} succeeded: ${JSON.stringify(result.structuredContent)}`);
  const first = result.content[0];
  if (first?.type !== 'text') throw new Error('tool error without text');
  return JSON.parse(first.text) as ToolFailure;
}

/** Query string of a REST call with the same arguments (arrays as repeated parameters). */
export function toQuery(args: Record<string, unknown>): string {
  const sp = new URLSearchParams();
  for (const [k, v] of Object.entries(args)) {
    for (const item of Array.isArray(v) ? v : [v]) sp.append(k, String(item));
  }
  return sp.toString();
}

/** The nine tools of spec part 1 and the change feed (issue 19), in the order the server lists them. */
export const TOOL_NAMES = [
  'list_countries',
  'list_filters',
  'list_activities',
  'list_locations',
  'count_companies',
  'search_companies',
  'get_company',
  'get_company_history',
  'get_company_workplaces',
  'list_changes',
  'export_companies',
  'estimate_cost',
];

/** Issue 31: the watchlist tools, listed after the others when the app has watchlists (as tests' apps do). */
export const WATCHLIST_TOOL_NAMES = ['manage_watchlists', 'list_events'];
