import type { EndTurn, RateLimit } from './rate-limit';
import { LONGEST_CALL_MS, RollingWindowLimiter } from './rolling-window.limiter';
import type { SharedAccountLimiter } from './shared-account-limiter';

// Holds calls to one remote account to its budget: resolves when one more call may leave, with the
// function that ends the call's turn once the call has settled (RemoteCallPolicy calls it).
export interface AccountLimiter {
  acquire(): Promise<EndTurn>;
}

// The one way a remote account's limiter is built (each HubSpot lane, a Follow Up Boss account,
// a Cash Offer API key): this process's rolling window of `limit`, timed from each call's end,
// and, when workers share a PostgreSQL ledger (`shared`), also a turn of the budget all of them
// count under `account`. `account` names the account without its credential (accountKey), plus
// the lane where a remote has more than one.
// `abortedAfterMs`: for a client that stops its request when an attempt times out (axios with the
// attempt's signal), that timeout. A turn whose call never settles here (its worker died with the
// call out) then gives its slot back shortly after the call could last, not after LONGEST_CALL_MS:
// a worker that takes over a dead one's jobs is not held up by the dead one's calls.
export function accountLimiter(
  limit: RateLimit,
  account: string,
  shared?: SharedAccountLimiter,
  abortedAfterMs?: number,
): AccountLimiter {
  return new RollingWindowLimiter(
    limit,
    shared && { limiter: shared, account },
    longestCallMs(abortedAfterMs),
  );
}

// How long a turn may be out before its slot is given back anyway: an aborted request a margin
// after its timeout (it may still be on its way to the remote that long), else LONGEST_CALL_MS.
export function longestCallMs(abortedAfterMs?: number): number {
  if (abortedAfterMs === undefined || !Number.isFinite(abortedAfterMs) || abortedAfterMs <= 0)
    return LONGEST_CALL_MS;
  return Math.min(LONGEST_CALL_MS, Math.ceil(abortedAfterMs) + ABORTED_CALL_MARGIN_MS);
}

const ABORTED_CALL_MARGIN_MS = 5000;
