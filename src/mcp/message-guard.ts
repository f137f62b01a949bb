import { isJSONRPCRequest, ProtocolErrorCode } from '@modelcontextprotocol/server';
import {
  CallToolRequestSchema,
  InitializeRequestSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
} from '@modelcontextprotocol/core';

/**
 * What the SDK's transport and server would answer badly, answered here first with the JSON-RPC codes the
 * protocol defines:
 * - a JSON-RPC batch (an array): MCP 2025-06-18 removed batching, and one batch of N tools/list calls
 *   was N answers for one request and one rate-limit token. It is an Invalid Request (-32600).
 * - a request whose params do not fit its method (`arguments: null`, a numeric tool name): the SDK parses
 *   them outside its handlers and answers -32603 with a raw validation dump; it is Invalid params (-32602).
 */

export interface RpcErrorBody {
  jsonrpc: '2.0';
  id: string | number | null;
  error: { code: number; message: string };
}

export interface Refused {
  /** HTTP status of the answer: 400 for a batch (no message is processed), 200 for a JSON-RPC error. */
  status: number;
  body: RpcErrorBody;
}

interface SafeParser {
  safeParse(value: unknown): {
    success: boolean;
    error?: { issues: readonly { path: readonly PropertyKey[]; message: string }[] };
  };
}

/** The request methods this server handles, by the SDK's own schemas for them. */
const PARAM_SCHEMAS: Record<string, SafeParser> = {
  initialize: InitializeRequestSchema,
  ping: PingRequestSchema,
  'tools/list': ListToolsRequestSchema,
  'tools/call': CallToolRequestSchema,
};

export const BATCH_REFUSAL =
  'JSON-RPC batches are not supported: MCP (protocol 2025-06-18) removed batching; send one message per ' +
  'HTTP request';

function describeIssue(issue: { path: readonly PropertyKey[]; message: string }): string {
  const where = issue.path.map(String).join('.');
  // zod says "record" for a JSON object and starts with "Invalid input: "; an agent reads plainer words.
  const what = issue.message.replace(/^Invalid input: /, '').replace(/\brecord\b/g, 'object');
  return `${where}: ${what}`;
}

/** The answer for a message the SDK must not see, or null when it may go on to the transport. */
export function refuseMessage(body: unknown): Refused | null {
  if (Array.isArray(body)) {
    return {
      status: 400,
      body: {
        jsonrpc: '2.0',
        id: null,
        error: { code: ProtocolErrorCode.InvalidRequest, message: BATCH_REFUSAL },
      },
    };
  }
  if (!isJSONRPCRequest(body)) return null;
  const schema = PARAM_SCHEMAS[body.method];
  if (!schema) return null;
  const parsed = schema.safeParse(body);
  if (parsed.success) return null;
  const issues = (parsed.error?.issues ?? []).slice(0, 5).map(describeIssue).join('; ');
  return {
    status: 200,
    body: {
      jsonrpc: '2.0',
      id: body.id,
      error: {
        code: ProtocolErrorCode.InvalidParams,
        message: `invalid params for ${body.method}: ${issues}`,
      },
    },
  };
}
