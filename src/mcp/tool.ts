import type { CallToolResult, ResourceLink, Tool, ToolAnnotations } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { AppError, isAppError, validationError } from '../errors/app-error.ts';
import { clientDetail, toValidationIssues } from '../http/error-handler.ts';
import { isSafeIntegerBound } from '../http/openapi.ts';
import type { Caller, Operations } from '../services/operations.ts';

/**
 * One MCP tool: its arguments are parsed by a zod schema built from the REST route's schema (one source),
 * its answer is the REST body as `structuredContent` plus a compact text for the model, and every call goes
 * through `Operations` with the MCP caller, so price, metering and errors are the REST ones.
 */
export interface ToolContext {
  ops: Operations;
  caller: Caller;
  /** Row prices in credits per country, for the texts that tell the model what a call cost. */
  prices: Readonly<Record<string, number>>;
  /**
   * A signed download link of the REST export for this caller's key, over the export's query parameters
   * (export_companies; src/services/export-link.ts).
   */
  exportLink(params: readonly (readonly [string, string])[]): { url: string; expiresAt: Date };
  /** A client the account allowed free tools only (OAuth scope `mcp:free`): metered tools answer 403. */
  freeOnly?: boolean;
}

export interface ToolAnswer {
  structured: Record<string, unknown>;
  text: string;
  /** Links to content the result points at (MCP `resource_link` items after the text). */
  links?: ResourceLink[];
}

export interface ToolDef<In extends z.ZodType = z.ZodType> {
  name: string;
  title: string;
  description: string;
  /** Parses the JSON arguments (refinements and transforms included); its input side is the JSON Schema. */
  input: In;
  /** What `structuredContent` holds on success. */
  output: z.ZodObject;
  /** Free tools are idempotent; metered ones are not (each call is charged). */
  metered: boolean;
  /**
   * What a call does to the account, for the MCP annotations: `read` (the default, every data tool),
   * `write` (adds to the account's watchlists), `destructive` (deletes from them). Unless said otherwise,
   * a tool is idempotent exactly when it is free.
   */
  effect?: 'read' | 'write' | 'destructive';
  idempotent?: boolean;
  run(ctx: ToolContext, args: z.output<In>): Promise<ToolAnswer>;
}

/** Keeps each tool's argument type tied to its schema while the list holds them as one type. */
export function defineTool<In extends z.ZodType>(def: ToolDef<In>): ToolDef {
  return def as unknown as ToolDef;
}

type JsonSchema = { [key: string]: unknown };

/** Keywords that describe a value rather than constrain one type of it: they stay beside an `anyOf`. */
const ANNOTATIONS = new Set(['description', 'title', 'default', 'examples', 'deprecated', '$comment']);

/** Which JSON Schema type a constraint keyword applies to (the rest apply whatever the type). */
const KEYWORD_TYPE: Record<string, string> = {
  minLength: 'string',
  maxLength: 'string',
  pattern: 'string',
  format: 'string',
  minimum: 'number',
  maximum: 'number',
  exclusiveMinimum: 'number',
  exclusiveMaximum: 'number',
  multipleOf: 'number',
  items: 'array',
  minItems: 'array',
  maxItems: 'array',
  uniqueItems: 'array',
  properties: 'object',
  required: 'object',
  additionalProperties: 'object',
};

const typeOf = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
const fits = (keywordType: string, type: string) =>
  keywordType === type || (keywordType === 'number' && type === 'integer');

/**
 * `type: ["string", "null"]` as `anyOf` branches of one type each, each branch with the constraints that
 * apply to its type: clients that map tool schemas onto a one-`type` dialect (the OpenAPI subset of some
 * model providers) reject or misread type arrays (MCP Inspector's portability check).
 */
function splitTypes(node: JsonSchema, types: string[]): JsonSchema {
  const out: JsonSchema = {};
  const constraints: [string, unknown][] = [];
  for (const [k, v] of Object.entries(node)) {
    if (k === 'type') continue;
    if (ANNOTATIONS.has(k)) out[k] = v;
    else constraints.push([k, v]);
  }
  out['anyOf'] = types.map((type) => {
    const branch: JsonSchema = { type };
    for (const [k, v] of constraints) {
      if (k === 'enum' || k === 'const') {
        const values = (k === 'enum' ? (v as unknown[]) : [v]).filter((x) => fits(typeOf(x), type));
        if (values.length > 0) branch[k] = k === 'enum' ? values : values[0];
      } else if (!(k in KEYWORD_TYPE) || fits(KEYWORD_TYPE[k]!, type)) branch[k] = v;
    }
    return branch;
  });
  return out;
}

/**
 * Any JSON value, spelled by type: a schema with a description and no constraint (zod's `unknown`, such as
 * a changed field's before and after values) reads to the Inspector as a forgotten schema.
 */
const ANY_JSON = [
  { type: 'string' },
  { type: 'number' },
  { type: 'boolean' },
  { type: 'null' },
  { type: 'array' },
  { type: 'object', additionalProperties: true },
];
const describesOnly = (n: JsonSchema) => {
  const keys = Object.keys(n);
  return keys.length > 0 && keys.every((k) => ANNOTATIONS.has(k));
};

/**
 * Tool schemas every major model provider takes, at fewer tokens:
 * - a schema that only describes (any JSON value) lists the JSON types (ANY_JSON);
 * - type arrays become one-type `anyOf` branches (splitTypes);
 * - an open object's `additionalProperties: {}` is written `true`, which says the same without looking
 *   like a forgotten schema; in output schemas every object is open (`open`), as the spec's objects are:
 *   a field added later, such as `postcode`, must not break a client that validates `structuredContent`;
 * - the long date regexes next to `format: date` and the ±2^53 bounds zod writes for every integer go:
 *   they cost an agent tokens and tell it nothing.
 */
function portable(node: unknown, open: boolean): unknown {
  if (Array.isArray(node)) return node.map((n) => portable(n, open));
  if (!node || typeof node !== 'object') return node;
  const n = node as JsonSchema;
  if (describesOnly(n)) return { ...n, anyOf: ANY_JSON };
  if (Array.isArray(n['type'])) return portable(splitTypes(n, n['type'] as string[]), open);
  const out: JsonSchema = {};
  for (const [k, v] of Object.entries(n)) {
    if (k === 'pattern' && n['format'] === 'date') continue;
    if ((k === 'maximum' || k === 'minimum') && isSafeIntegerBound(v)) continue;
    const empty = v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0;
    out[k] = k === 'additionalProperties' && (empty || (open && v === false)) ? true : portable(v, open);
  }
  return out;
}

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Tool['inputSchema'] {
  // draft-7 as the SDK's own McpServer emits: what the SDK client's validator and today's agents read.
  const js = z.toJSONSchema(schema, { io, target: 'draft-7', unrepresentable: 'any' }) as JsonSchema;
  delete js['$schema'];
  return portable(js, io === 'output') as Tool['inputSchema'];
}

/** The tools/list entry, computed once per process: every request of a stateless server sends the same list. */
export function toolListing(def: ToolDef): Tool {
  const effect = def.effect ?? 'read';
  const annotations: ToolAnnotations = {
    title: def.title,
    readOnlyHint: effect === 'read',
    destructiveHint: effect === 'destructive',
    idempotentHint: def.idempotent ?? !def.metered,
    openWorldHint: false,
  };
  return {
    name: def.name,
    title: def.title,
    description: def.description,
    inputSchema: jsonSchema(def.input, 'input'),
    outputSchema: jsonSchema(def.output, 'output'),
    annotations,
  };
}

/** Zod issues as the REST 422 `detail` (same element shape), located in `arguments` instead of `query`. */
export function argumentIssues(error: z.ZodError) {
  return toValidationIssues(
    error.issues.map((issue) => ({
      keyword: issue.code,
      instancePath: `/${issue.path.join('/')}`,
      message: issue.message,
      params: issue as unknown as Record<string, unknown>,
    })),
    'arguments',
  );
}

/**
 * A failed call as an MCP tool error: `{status, detail}` as JSON text, `detail` exactly what REST sends
 * for the same failure. Anything that is not an AppError is logged and shown as a fixed 500 text.
 */
export function toolError(err: unknown, log: (err: unknown) => void): CallToolResult {
  const appError = isAppError(err)
    ? err
    : new AppError('internal', 'internal server error', [], { cause: err });
  if (appError.status >= 500) log(err);
  const body = { status: appError.status, detail: clientDetail(appError) };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }] };
}

/** Where an MCP request carries its idempotency key (docs/mcp.md): `params._meta.idempotency_key`. */
export const IDEMPOTENCY_META_KEY = 'idempotency_key';

const IDEMPOTENCY_LOC = ['_meta', IDEMPOTENCY_META_KEY];

/**
 * The caller with the request's idempotency key, as REST's Idempotency-Key header gives it: only metered
 * tools use it (free ones are idempotent anyway). A key that is not a string is a 422 here; its shape and
 * reuse are checked by the wallet, whose issues name the REST header and are renamed for MCP below.
 */
function withIdempotencyKey(ctx: ToolContext, meta: Record<string, unknown> | undefined): ToolContext {
  const key = meta?.[IDEMPOTENCY_META_KEY];
  if (key === undefined) return ctx;
  if (typeof key !== 'string') {
    throw validationError([
      {
        loc: IDEMPOTENCY_LOC,
        param: IDEMPOTENCY_META_KEY,
        msg: 'must be a string of 1-255 printable ASCII characters',
        type: 'string_type',
      },
    ]);
  }
  return { ...ctx, caller: { ...ctx.caller, idempotencyKey: key } };
}

/** Where REST locates a value that MCP carries in `arguments`. */
const REST_LOCS = new Set<unknown>(['query', 'body']);

/**
 * A service's 422 issues located where MCP carries the value: the wallet's Idempotency-Key issues at the
 * `_meta` key, issues about a query parameter (a too-old `updated_since`, an estimate's parameters) or a
 * body field (a watchlist's codes or saved search) in `arguments`.
 */
function renameIdempotencyIssues(err: unknown): unknown {
  if (!isAppError(err) || err.code !== 'validation_failed') return err;
  if (!err.issues.some((i) => i.param === 'Idempotency-Key' || REST_LOCS.has(i.loc[0]))) return err;
  const issues = err.issues.map((i) =>
    i.param === 'Idempotency-Key'
      ? { ...i, loc: IDEMPOTENCY_LOC, param: IDEMPOTENCY_META_KEY }
      : REST_LOCS.has(i.loc[0])
        ? { ...i, loc: ['arguments', ...i.loc.slice(1)] }
        : i,
  );
  return validationError(issues);
}

export async function callTool(
  def: ToolDef,
  args: unknown,
  ctx: ToolContext,
  log: (err: unknown) => void,
  meta?: Record<string, unknown>,
): Promise<CallToolResult> {
  try {
    if (def.metered && ctx.freeOnly) {
      throw new AppError(
        'forbidden',
        'this connection may use the free tools only (OAuth scope mcp:free); connect with mcp:data for metered tools',
      );
    }
    const parsed = await def.input.safeParseAsync(args ?? {});
    if (!parsed.success) throw validationError(argumentIssues(parsed.error));
    const callCtx = def.metered ? withIdempotencyKey(ctx, meta) : ctx;
    const answer = await def.run(callCtx, parsed.data).catch((err: unknown) => {
      throw renameIdempotencyIssues(err);
    });
    return {
      structuredContent: answer.structured,
      content: [{ type: 'text', text: answer.text }, ...(answer.links ?? [])],
    };
  } catch (err) {
    return toolError(err, log);
  }
}
