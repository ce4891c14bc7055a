import type { RateLimit } from './rate-limit';
import { RollingWindowLimiter } from './rolling-window.limiter';
import type { SharedAccountLimiter } from './shared-account-limiter';

// Holds calls to one remote account to its budget: resolves when one more call may leave.
export interface AccountLimiter {
  acquire(): Promise<void>;
}

// The one way a remote account's limiter is built (each HubSpot lane, a Follow Up Boss account,
// a Cash Offer API key): this process's rolling window of `limit`, and, when workers share a
// PostgreSQL ledger (`shared`), also a turn of the budget all of them count under `account`.
// `account` names the account without its credential (accountKey), plus the lane where a remote
// has more than one.
export function accountLimiter(
  limit: RateLimit,
  account: string,
  shared?: SharedAccountLimiter,
): AccountLimiter {
  return new RollingWindowLimiter(limit, shared && { limiter: shared, account });
}
