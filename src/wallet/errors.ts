import { AppError } from '../errors/app-error.ts';
import type { RateLimitDecision } from './types.ts';
import { formatCredits, type Micro } from './money.ts';

/**
 * Subclasses keep the one error code registry (code 'insufficient_credits' / 'rate_limited') while carrying
 * the numbers the HTTP layer and the tests need: the error handler still switches on `code`, and reads
 * `retryAfterSeconds` through the type guard below for the Retry-After header.
 */
export class InsufficientCreditsError extends AppError {
  constructor(
    readonly balanceMicro: Micro,
    readonly neededMicro: Micro,
  ) {
    // Spec 7: `insufficient credits: have <balance>, need <amount>`, in credits with two decimals.
    super(
      'insufficient_credits',
      `insufficient credits: have ${formatCredits(balanceMicro, 'down')}, need ${formatCredits(neededMicro, 'up')}`,
    );
  }
}

export class RateLimitedError extends AppError {
  constructor(
    message: string,
    /** Whole seconds for the Retry-After header; at least 1. */
    readonly retryAfterSeconds: number,
    /** Header values for RateLimit / RateLimit-Policy on the 429 itself; null when not from the limiter. */
    readonly decision: RateLimitDecision | null,
  ) {
    super('rate_limited', message);
  }
}

export function isRateLimitedError(err: unknown): err is RateLimitedError {
  return err instanceof RateLimitedError;
}

export function isInsufficientCreditsError(err: unknown): err is InsufficientCreditsError {
  return err instanceof InsufficientCreditsError;
}
