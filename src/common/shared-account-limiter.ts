import { createHash } from 'node:crypto';
import type { EndTurn, RateLimit } from './rate-limit';

// A remote account's request budget counted across every worker that shares a ledger. Each
// process keeps its own limiter too (it alone keeps to a rolling window); this one makes the
// workers' calls to one account add up to at most `max` per window. Absent on SQLite, where one
// process makes every call.
export interface SharedAccountLimiter {
  // Resolves when one more call to `account` may leave, with the function that ends its turn once
  // the call has settled (the window of its slot runs from then). A turn never ended (its worker
  // died with the call out) holds its slot `longestCallMs` from its start.
  acquire(account: string, limit: RateLimit, longestCallMs: number): Promise<EndTurn>;
}

export const SHARED_ACCOUNT_LIMITER = Symbol('SHARED_ACCOUNT_LIMITER');

// Names a remote account by its address and credential without keeping the credential: the same
// token on the same host is the same account, whichever brokerage file names it.
export function accountKey(vendor: string, baseUrl: string, credential: string): string {
  const digest = createHash('sha256').update(`${baseUrl}\n${credential}`).digest('hex').slice(0, 32);
  return `${vendor}:${digest}`;
}
