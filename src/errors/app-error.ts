/**
 * The one error type the service throws on purpose. Each code fixes the HTTP status (spec part 7) so the
 * single error handler, the MCP tool layer and the CLI can map it without instanceof chains.
 */
export const ERROR_STATUS = {
  bad_request: 400,
  malformed_registration_code: 400,
  no_location_tree: 400,
  unauthorized: 401,
  forbidden: 403,
  insufficient_credits: 402,
  not_found: 404,
  validation_failed: 422,
  rate_limited: 429,
  internal: 500,
  backend_unavailable: 502,
  overloaded: 503,
} as const;

/** Seconds a client is told to wait (Retry-After) when the engine turns a query away as overloaded. */
export const OVERLOADED_RETRY_AFTER_SECONDS = 1;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** One element of a 422 `detail` array (spec 7 leaves its shape open; see docs/api-decisions.md). */
export interface ValidationIssue {
  loc: (string | number)[];
  param: string;
  msg: string;
  type: string;
}

export class AppError extends Error {
  override readonly name = 'AppError';
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    /** Safe to show to the client: never SQL, paths or stack traces. */
    message: string,
    readonly issues: ValidationIssue[] = [],
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.status = ERROR_STATUS[code];
  }
}

export function isAppError(err: unknown): err is AppError {
  return err instanceof AppError;
}

export function validationError(issues: ValidationIssue[]): AppError {
  return new AppError('validation_failed', issues.map((i) => `${i.param}: ${i.msg}`).join('; '), issues);
}
