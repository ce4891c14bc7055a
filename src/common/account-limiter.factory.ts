import type { PaceCut } from './adaptive-pace';
import type { EndTurn, RateLimit } from './rate-limit';
import { LONGEST_CALL_MS, RollingWindowLimiter } from './rolling-window.limiter';
import type { SharedAccountLimiter } from './shared-account-limiter';

// Holds calls to one remote account to its budget: resolves when one more call may leave, with the
// function that ends the call's turn once the call has settled (RemoteCallPolicy calls it).
export interface AccountLimiter {
  acquire(): Promise<EndTurn>;
  // The remote refused a call as over its limit: use fewer slots for a while (adaptive-pace.ts).
  // Says the cut made, or undefined when a cut was made just before.
  slowDown(): PaceCut | undefined;
}

// The one way a remote account's limiter is built (each HubSpot lane, a Follow Up Boss account,
// a Cash Offer API key): this process's rolling window of `limit`, timed from each call's end,
// and, when workers share a PostgreSQL ledger (`shared`), also a turn of the budget all of them
// count under `account`. `account` names the account without its credential (accountKey), plus
// the lane where a remote has more than one.
// `calls`: the client's per-attempt timeout, and whether it stops the request then (axios with
// the attempt's signal) or only stops waiting (HubSpot's SDK). It bounds how long a turn whose call
// never settles holds its slots (longestCallMs). Without it, LONGEST_CALL_MS.
export function accountLimiter(
  limit: RateLimit,
  account: string,
  shared?: SharedAccountLimiter,
  calls?: CallTiming,
): AccountLimiter {
  const { local, shared: sharedHold } = longestCallMs(calls);
  return new RollingWindowLimiter(
    limit,
    shared && { limiter: shared, account, longestCallMs: sharedHold },
    local,
  );
}

export interface CallTiming {
  timeoutMs: number;
  abortsAtTimeout: boolean;
}

// How long a turn may be out before its slot is given back anyway.
// - In this process: a request stopped at its timeout cannot arrive later than a margin after it;
//   one the client only stopped waiting for may still be on its way, so LONGEST_CALL_MS.
// - In the budget shared by workers, where a turn never ended means its worker died with the call
//   out: a dead process's connections are closed with it, so its request arrived or never will, and
//   the slot comes back a margin after the timeout either way. A worker that takes over a dead one's
//   jobs is not held up minutes by the dead one's calls. (A live worker's request hung past that,
//   which the client only stopped waiting for, is still held by its own limiter; should it arrive
//   late, one call over the budget is a 429 the policy retries and counts.)
export function longestCallMs(calls?: CallTiming): { local: number; shared: number } {
  if (!calls || !Number.isFinite(calls.timeoutMs) || calls.timeoutMs <= 0)
    return { local: LONGEST_CALL_MS, shared: LONGEST_CALL_MS };
  const afterTimeout = Math.min(LONGEST_CALL_MS, Math.ceil(calls.timeoutMs) + CALL_SETTLE_MARGIN_MS);
  return { local: calls.abortsAtTimeout ? afterTimeout : LONGEST_CALL_MS, shared: afterTimeout };
}

const CALL_SETTLE_MARGIN_MS = 5000;
