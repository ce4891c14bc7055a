import { parseRetryAfter } from '../../common/retry-after.parser';
import { CrmError } from '../crm.error';
import type { CrmErrorCode, CrmErrorDetails } from '../crm.error';

// The SDK throws a per-module ApiException class, so it is recognised by shape, not instanceof.
interface ApiExceptionLike {
  code: number;
  body: unknown;
  headers: Record<string, string>;
}

interface HubSpotErrorBody {
  message?: string;
  category?: string;
  policyName?: string;
  errors?: { message?: string; context?: Record<string, string[]> }[];
  context?: Record<string, string[]>;
}

// The inputs a whole-batch failure names, when HubSpot names any (`context.ids`, `inputIndex`,
// `fromObjectId`/`toObjectId`). A hint only: a batch without one is isolated by splitting.
export interface BlamedInputs {
  ids: string[];
  indexes: number[];
  pairs: [from: string, to: string][];
}

// A failed HubSpot call: the CrmError, plus HubSpot's own words and the inputs it blamed, so a
// batch writer can show the message on the one record it is about.
export class HubSpotCallError extends CrmError {
  constructor(
    code: CrmErrorCode,
    message: string,
    details: CrmErrorDetails,
    readonly hubspotMessage: string,
    readonly blamed: BlamedInputs,
  ) {
    super(code, message, details);
  }
}

function blamedInputs(body: HubSpotErrorBody): BlamedInputs {
  const ctx = body.context ?? {};
  const from = ctx.fromObjectId ?? [];
  const to = ctx.toObjectId ?? [];
  return {
    ids: ctx.ids ?? [],
    indexes: (ctx.inputIndex ?? []).map(Number).filter((n) => Number.isInteger(n)),
    pairs: from.map((f, i) => [f, to[i] ?? ''] as [string, string]),
  };
}

function isApiException(error: unknown): error is ApiExceptionLike {
  const e = error as Partial<ApiExceptionLike> | null;
  return (
    typeof e === 'object' &&
    e !== null &&
    typeof e.code === 'number' &&
    'body' in e &&
    typeof e.headers === 'object'
  );
}

function bodyOf(value: unknown): HubSpotErrorBody {
  if (typeof value !== 'object' || value === null) return {};
  return value;
}

const BY_CATEGORY: Record<string, CrmErrorCode> = {
  VALIDATION_ERROR: 'INVALID_RECORD',
  OBJECT_NOT_FOUND: 'NOT_FOUND',
  CONFLICT: 'CONFLICT',
  RATE_LIMITS: 'RATE_LIMITED',
  INVALID_AUTHENTICATION: 'AUTH_FAILED',
  MISSING_SCOPES: 'AUTH_FAILED',
  INTERNAL_ERROR: 'UNAVAILABLE',
};

function codeForStatus(status: number): CrmErrorCode {
  if (status === 401 || status === 403) return 'AUTH_FAILED';
  if (status === 404) return 'NOT_FOUND';
  if (status === 409) return 'CONFLICT';
  if (status === 429) return 'RATE_LIMITED';
  if (status >= 400 && status < 500) return 'INVALID_RECORD';
  return 'UNAVAILABLE';
}

// Property names HubSpot blamed: from `errors[].context.propertyName`, else from its message text.
export function blamedFields(body: HubSpotErrorBody): string[] {
  const fromContext = (body.errors ?? []).flatMap((e) => e.context?.propertyName ?? []);
  if (fromContext.length > 0) return [...new Set(fromContext)];
  const fromMessage = [...(body.message ?? '').matchAll(/"name":"([^"]+)"/g)].map((m) => m[1]);
  return [...new Set(fromMessage)];
}

// Plain words: "amount: lots is not a valid number" rather than HubSpot's JSON-in-a-string.
export function plainMessage(body: HubSpotErrorBody): string {
  const details = (body.errors ?? [])
    .map((e) => {
      const field = e.context?.propertyName?.[0];
      // A 403 names the scopes the token lacks; say which, so the operator can grant them.
      const scopes = e.context?.requiredScopes;
      if (scopes && scopes.length > 0) return `missing scope ${scopes.join(', ')}: ${e.message ?? ''}`.trim();
      return field && e.message && !e.message.includes(field) ? `${field}: ${e.message}` : e.message;
    })
    .filter((m): m is string => Boolean(m));
  if (details.length > 0) return details.join('; ');
  return body.message ?? 'HubSpot gave no message';
}

// How long a 429 asks us to wait, by its policy (the SDK drops policyName, so the message is read too).
// Undefined means waiting inside this run will not help (the daily limit).
function rateLimitWaitMs(body: HubSpotErrorBody, headers: Record<string, string>): number | undefined {
  const retryAfter = retryAfterHeaderMs(headers);
  if (retryAfter !== undefined) return retryAfter;
  const policy = body.policyName ?? '';
  const message = (body.message ?? '').toLowerCase();
  if (policy === 'DAILY' || message.includes('daily')) return undefined;
  if (policy === 'SECONDLY' || (message.includes('secondly limit.') && !message.includes('ten_secondly')))
    return 1000;
  // A rolling window frees one slot every interval/max on average.
  const interval = Number(headers['x-hubspot-ratelimit-interval-milliseconds']) || 10_000;
  const max = Number(headers['x-hubspot-ratelimit-max']) || 190;
  return Math.max(50, Math.ceil(interval / max));
}

// Waits HubSpot documents beside 429 (developers.hubspot.com/docs/api-reference/error-handling):
// 423 Locked when a large volume is synced in a short time ("locks will last for 2 seconds", so at
// least 2 s between requests), and 477 Migration in Progress while the account moves between data
// hosting locations, with a Retry-After "typically up to 24 hours". Neither says anything of the
// record, so neither may be taken for a refusal of it.
const LOCKED = 423;
const MIGRATING = 477;
const LOCK_MS = 2000;

// A wait of 0 says nothing: the 429 is then timed by its policy.
function retryAfterHeaderMs(headers: Record<string, string>): number | undefined {
  return parseRetryAfter(headers['retry-after'], Date.now()) || undefined;
}

function documentedWait(status: number, body: HubSpotErrorBody, headers: Record<string, string>) {
  if (status === 429) return { code: 'RATE_LIMITED' as const, retryAfterMs: rateLimitWaitMs(body, headers) };
  if (status === LOCKED)
    return { code: 'RATE_LIMITED' as const, retryAfterMs: retryAfterHeaderMs(headers) ?? LOCK_MS };
  if (status === MIGRATING)
    return { code: 'UNAVAILABLE' as const, retryAfterMs: retryAfterHeaderMs(headers) };
  return undefined;
}

export function toCrmError(error: unknown, what: string): CrmError {
  if (error instanceof CrmError) return error;
  if (isApiException(error)) {
    const body = bodyOf(error.body);
    const status = error.code;
    const wait = documentedWait(status, body, error.headers);
    const code = wait?.code ?? BY_CATEGORY[body.category ?? ''] ?? codeForStatus(status);
    const retryAfterMs = wait?.retryAfterMs;
    const plain = plainMessage(body);
    return new HubSpotCallError(
      code,
      `${what}: ${plain} (HubSpot ${status})`,
      { status, fields: blamedFields(body), retryAfterMs },
      plain,
      blamedInputs(body),
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  return new CrmError('UNAVAILABLE', `${what}: HubSpot could not be reached (${message})`);
}

// One entry of a 207's `errors`, told about one record.
export function fromStandardError(entry: unknown, record: string, prefix: string): CrmError {
  const body = bodyOf(entry);
  const code = BY_CATEGORY[body.category ?? ''] ?? 'INVALID_RECORD';
  return new CrmError(code, `${prefix}: ${plainMessage(body)}`, { record, fields: blamedFields(body) });
}
