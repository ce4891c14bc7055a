import { RateLimiterMemory, RateLimiterPostgres, RateLimiterQueue } from 'rate-limiter-flexible';
import type { DataSource } from 'typeorm';
import type { AccountLimit, SharedAccountLimiter } from '../common/shared-account-limiter';

// rate-limiter-flexible's own table, in the ledger's database (created by the library, which
// tolerates several workers creating it at once).
const TABLE = 'account_rate_limits';

// Remote accounts' budgets shared by every worker of a PostgreSQL ledger, on rate-limiter-flexible
// (the library the Cash Offer client already limits with): one row per account, updated atomically
// by whichever worker calls. The remotes count rolling windows, which fixed windows of `max` calls
// would overrun where two windows meet (max late in one, max early in the next); so the budget is
// paced instead: one call per interval/max, and no window of any start holds more than max. A
// worker whose turn has not come waits. If PostgreSQL cannot answer, each worker counts alone.
export class PostgresAccountLimiter implements SharedAccountLimiter {
  private readonly queues = new Map<string, Promise<RateLimiterQueue>>();

  constructor(private readonly dataSource: DataSource) {}

  async acquire(account: string, limit: AccountLimit): Promise<void> {
    const queue = await this.queueFor(limit);
    await queue.removeTokens(1, account);
  }

  // One limiter per distinct budget; accounts are keys within it.
  private queueFor(limit: AccountLimit): Promise<RateLimiterQueue> {
    const id = `${limit.max}/${limit.intervalMs}`;
    let queue = this.queues.get(id);
    if (!queue) {
      const options = { points: 1, duration: limit.intervalMs / limit.max / 1000, keyPrefix: `calls${id}` };
      queue = new Promise<RateLimiterQueue>((resolve, reject) => {
        const limiter = new RateLimiterPostgres(
          {
            ...options,
            storeClient: this.dataSource,
            storeType: 'typeorm',
            tableName: TABLE,
            clearExpiredByTimeout: true,
            insuranceLimiter: new RateLimiterMemory(options),
          },
          (error?: Error) => (error ? reject(error) : resolve(new RateLimiterQueue(limiter))),
        );
      });
      // A failed start (the table could not be created) is tried again on the next call.
      queue.catch(() => this.queues.delete(id));
      this.queues.set(id, queue);
    }
    return queue;
  }
}
