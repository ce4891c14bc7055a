import { Injectable, Logger, Optional } from '@nestjs/common';
import { Clock, SystemClock } from '../common/clock';
import { CashOfferClient } from './cash-offer.client';
import { CashOfferClientOptions } from './cash-offer-client.options';

// Builds one client per brokerage; each has its own connections, rate limit and breaker.
@Injectable()
export class CashOfferClientFactory {
  private readonly clock: Clock;

  constructor(@Optional() clock?: Clock) {
    this.clock = clock ?? new SystemClock();
  }

  create(options: CashOfferClientOptions): CashOfferClient {
    return new CashOfferClient(options, this.clock, new Logger(`CashOfferClient:${options.brokerageId}`));
  }
}
