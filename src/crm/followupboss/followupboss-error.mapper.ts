import { isAxiosError } from 'axios';
import { parseRetryAfter } from '../../common/retry-after.parser';
import { CrmError, type CrmErrorCode } from '../crm.error';

// FUB answers errors as JSON `{ errorMessage }` with 400, 401, 403, 404, 429 or 5xx
// (crm-apis.md B4/B6). Everything becomes a CrmError with a code the retry logic reads.
export function toCrmError(error: unknown, what: string, record?: string): CrmError {
  if (error instanceof CrmError) return error;
  if (!isAxiosError(error)) {
    return new CrmError('UNAVAILABLE', `${what}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const response = error.response;
  if (!response) {
    const reason =
      error.code === 'ECONNABORTED' || error.code === 'ETIMEDOUT' ? 'no answer in time' : error.message;
    return new CrmError('UNAVAILABLE', `${what}: Follow Up Boss could not be reached (${reason})`, {
      record,
    });
  }
  const status = response.status;
  const body = response.data as { errorMessage?: unknown } | undefined;
  const said = typeof body?.errorMessage === 'string' ? body.errorMessage : `HTTP ${status}`;
  const details = {
    status,
    record,
    ...(status === 429 ? { retryAfterMs: retryAfterMs(response.headers['retry-after']) } : {}),
  };
  return new CrmError(codeOf(status), `${what}: Follow Up Boss answered ${status}: ${said}`, details);
}

function codeOf(status: number): CrmErrorCode {
  if (status === 429) return 'RATE_LIMITED';
  if (status === 401 || status === 403) return 'AUTH_FAILED';
  if (status === 404) return 'NOT_FOUND';
  if (status === 409) return 'CONFLICT';
  if (status >= 500) return 'UNAVAILABLE';
  return 'INVALID_RECORD';
}

// Retry-After is in seconds (crm-apis.md B4); an HTTP date is read too. A 429 without it waits a
// second, the shortest wait that makes sense for a 10 s window.
export function retryAfterMs(header: unknown): number {
  return parseRetryAfter(header, Date.now()) ?? 1000;
}
