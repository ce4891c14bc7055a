import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { Clock, SystemClock } from '../common/clock';
import { SHARED_ACCOUNT_LIMITER, type SharedAccountLimiter } from '../common/shared-account-limiter';
import { CashOfferClient } from './cash-offer.client';
import { CashOfferClientOptions } from './cash-offer-client.options';

// Builds one client per brokerage; each has its own connections, rate limit and breaker.
@Injectable()
export class CashOfferClientFactory {
  private readonly clock: Clock;

  constructor(
    @Optional() clock?: Clock,
    // Set when workers share a PostgreSQL ledger: one API key's calls are counted across them.
    @Optional() @Inject(SHARED_ACCOUNT_LIMITER) private readonly sharedLimiter?: SharedAccountLimiter | null,
  ) {
    this.clock = clock ?? new SystemClock();
  }

  create(options: CashOfferClientOptions): CashOfferClient {
    const shared = options.sharedLimiter ?? this.sharedLimiter ?? undefined;
    return new CashOfferClient(
      { ...options, ...(shared ? { sharedLimiter: shared } : {}) },
      this.clock,
      new Logger(`CashOfferClient:${options.brokerageId}`),
    );
  }
}
