import { CashOfferError, ServiceErrorDetail } from './cash-offer.error';
import { OperationSpec } from './cash-offer.operations';
import {
  ANSWER_TIMEOUT,
  ANSWER_TOO_LARGE,
  CLIENT_CLOSED,
  CONNECT_TIMEOUT,
  MAX_ANSWER_BYTES,
} from './cash-offer.transport';
import { FieldViolation, isPlainObject } from './schema';

// Transport failures after which the request provably never reached the service: the connection
// was refused or never completed, or the host name never resolved. Everything else may have been
// processed. Codes are Node's, from the socket and the transport (cash-offer.transport.ts).
const NEVER_LEFT_CODES = ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', CONNECT_TIMEOUT];
const TIMEOUT_CODES = [ANSWER_TIMEOUT];
const DROPPED_CODES = ['ECONNRESET', 'EPIPE'];
const MAX_MESSAGE_CHARS = 500;

// The TLS handshake failed (an untrusted, expired or misnamed certificate): nothing of the request
// is sent before the handshake completes.
function isTlsFailure(code: string): boolean {
  return /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|^ERR_TLS|^ERR_SSL/.test(code);
}

export function requestNeverLeft(networkCode: string): boolean {
  return NEVER_LEFT_CODES.includes(networkCode) || isTlsFailure(networkCode);
}

function describeNetwork(code: string): string {
  if (TIMEOUT_CODES.includes(code)) return 'the service did not answer in time';
  if (code === CONNECT_TIMEOUT) return 'the connection to the service could not be opened in time';
  if (code === 'ECONNREFUSED') return 'the service refused the connection';
  if (isTlsFailure(code))
    return `the service's TLS certificate was not accepted (${code}); a certificate from a private authority is trusted by starting node with NODE_EXTRA_CA_CERTS`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME')
    return 'the service host name could not be resolved';
  if (DROPPED_CODES.includes(code)) return 'the connection was dropped';
  if (code === CLIENT_CLOSED) return 'the client was closed';
  if (code === ANSWER_TOO_LARGE)
    return `the service's answer was longer than ${MAX_ANSWER_BYTES / 1024 / 1024} MiB and was not read`;
  return `the request failed (${code})`;
}

// A network failure becomes UNAVAILABLE, except on a create that may have been processed: then
// nobody knows whether the record exists, and only reconciliation can tell.
export function classifyNetworkFailure(op: OperationSpec, networkCode: string): CashOfferError {
  const what = describeNetwork(networkCode);
  if (op.kind === 'create' && !requestNeverLeft(networkCode)) {
    return new CashOfferError({
      code: 'OUTCOME_UNKNOWN',
      operation: op.name,
      networkCode,
      message: `${op.name}: ${what}; the record may or may not have been created, so it was not retried`,
    });
  }
  return new CashOfferError({
    code: 'UNAVAILABLE',
    operation: op.name,
    networkCode,
    message: `${op.name}: ${what}`,
  });
}

// Reads the service's `{ error, message }`; any other body is kept as a short text message.
// Secrets that must not be printed, each with what to show instead.
export type Masks = ReadonlyArray<readonly [secret: string, mask: string]>;

export function maskText(text: string, masks: Masks): string {
  return masks.reduce((t, [secret, mask]) => (secret ? t.split(secret).join(mask) : t), text);
}

export function parseServiceError(status: number, body: string, masks: Masks): ServiceErrorDetail {
  let detail: ServiceErrorDetail = { error: status, message: body.trim() };
  try {
    const parsed: unknown = JSON.parse(body);
    if (isPlainObject(parsed) && typeof parsed.message === 'string') {
      const error =
        typeof parsed.error === 'number' || typeof parsed.error === 'string' ? parsed.error : status;
      detail = { error, message: parsed.message };
    }
  } catch {
    // not JSON: keep the text
  }
  // A service that echoes the key back must not make us print it.
  return { error: detail.error, message: maskText(detail.message, masks).slice(0, MAX_MESSAGE_CHARS) };
}

// The service names every offending field in a 400, separated by "; " (spec-decisions.md).
export function violationsFromMessage(message: string): FieldViolation[] {
  return message
    .split(/;\s+/)
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .map((part) => {
      const named = /^([A-Za-z_][\w.[\]]*) (is|are|must|cannot|has|was|should)\b/.exec(part);
      return { field: named ? named[1] : 'body', message: part };
    });
}

const SPEAKS_OF_THE_KEY =
  /\b(api[\s_-]?key|authori[sz]ation( header)?|unauthori[sz]ed|authenticat\w*|credentials?|access[\s_-]?token)\b/i;

// The answers classified AUTH_FAILED: a 401 or a 403, or a 400/404/422 whose words speak of the key
// (the spec shows no code for a missing or unknown key).
function refusesKeyOrRole(status: number, speaksOfKey: boolean): boolean {
  return status === 401 || status === 403 || ([400, 404, 422].includes(status) && speaksOfKey);
}

// Whether an answer may be the service refusing the key (or the way it was written): one that is
// classified AUTH_FAILED. Read before the failure is classified, so the other way of writing the
// key can be tried (key-form.ts).
export function mayRefuseTheKey(status: number, body: string): boolean {
  return refusesKeyOrRole(status, SPEAKS_OF_THE_KEY.test(parseServiceError(status, body, []).message));
}

export interface HttpFailure {
  status: number;
  body: string;
  retryAfterMs?: number;
}

export function classifyHttpFailure(op: OperationSpec, failure: HttpFailure, masks: Masks): CashOfferError {
  const { status } = failure;
  const serviceError = parseServiceError(status, failure.body, masks);
  const said = serviceError.message ? `: ${serviceError.message}` : '';
  const base = { operation: op.name, status, serviceError };
  if (status === 429)
    return new CashOfferError({
      ...base,
      code: 'RATE_LIMITED',
      retryAfterMs: failure.retryAfterMs,
      message: `${op.name}: the service is rate limiting this brokerage (429)${said}`,
    });
  if (status >= 500 || status === 408) {
    if (op.kind === 'create')
      return new CashOfferError({
        ...base,
        code: 'OUTCOME_UNKNOWN',
        message: `${op.name}: the service failed with ${status}${said}; the record may or may not have been created, so it was not retried`,
      });
    return new CashOfferError({
      ...base,
      code: 'UNAVAILABLE',
      retryAfterMs: failure.retryAfterMs,
      message: `${op.name}: the service failed with ${status}${said}`,
    });
  }
  // The spec shows no code for a missing or unknown key: a service may say it with a 403 (as many
  // API gateways do) or with the 400 it uses for everything else (or a 404, a 422). Its words tell;
  // a 403 that does not speak of the key concerns the record or the account's role.
  const speaksOfKey = SPEAKS_OF_THE_KEY.test(serviceError.message);
  if (refusesKeyOrRole(status, speaksOfKey)) {
    const keyOrRole = status === 401 || status === 403;
    return new CashOfferError({
      ...base,
      code: 'AUTH_FAILED',
      keyRefused: status === 401 || speaksOfKey,
      message: `${op.name}: the service refused this brokerage's API key${keyOrRole ? ' or role' : ''} (${status})${said}`,
    });
  }
  if (status === 404)
    return new CashOfferError({ ...base, code: 'NOT_FOUND', message: `${op.name}: not found (404)${said}` });
  if (status === 409)
    return new CashOfferError({ ...base, code: 'CONFLICT', message: `${op.name}: conflict (409)${said}` });
  if (status >= 400)
    return new CashOfferError({
      ...base,
      code: 'INVALID_RECORD',
      violations: violationsFromMessage(serviceError.message),
      message: `${op.name}: the service refused the record (${status})${said}`,
    });
  // 1xx/3xx: redirects are not followed (they could carry the key elsewhere).
  return new CashOfferError({
    ...base,
    code: 'UNAVAILABLE',
    message: `${op.name}: unexpected answer ${status} from the service`,
  });
}

// Whether the retry policy may repeat the attempt that failed with this error.
export function isRetryableAttempt(error: unknown, maxRetryAfterMs: number): boolean {
  if (!(error instanceof CashOfferError) || cutByShutdown(error)) return false;
  if (error.code === 'RATE_LIMITED' || error.code === 'UNAVAILABLE')
    return (error.retryAfterMs ?? 0) <= maxRetryAfterMs;
  return false;
}

// A call this process cut short itself (its client closed on shutdown): says nothing of the service.
function cutByShutdown(error: CashOfferError): boolean {
  return error.networkCode === CLIENT_CLOSED;
}

// Failures that say the service is unwell; they open the breaker. 4xx answers and 429 do not:
// the service is up and telling us something; nor does a call cut short by our own shutdown.
export function countsAgainstBreaker(error: unknown): boolean {
  return (
    error instanceof CashOfferError &&
    (error.code === 'UNAVAILABLE' || error.code === 'OUTCOME_UNKNOWN') &&
    !cutByShutdown(error)
  );
}
