import type { EndTurn, RateLimit } from './rate-limit';
import { RollingWindowLimiter } from './rolling-window.limiter';
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
export function accountLimiter(
  limit: RateLimit,
  account: string,
  shared?: SharedAccountLimiter,
): AccountLimiter {
  return new RollingWindowLimiter(limit, shared && { limiter: shared, account });
}
