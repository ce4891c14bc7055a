import { Injectable } from '@nestjs/common';
import { HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import { Ledger } from '../../ledger';

const LEDGER_PROBE_TIMEOUT_MS = 2000;

// The ledger answers a trivial query within a bound.
@Injectable()
export class LedgerHealthIndicator {
  constructor(
    private readonly ledger: Ledger,
    private readonly indicators: HealthIndicatorService,
  ) {}

  async check(): Promise<HealthIndicatorResult> {
    const session = this.indicators.check('ledger');
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.ledger.dataSource.query('SELECT 1'),
        new Promise((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`no answer within ${LEDGER_PROBE_TIMEOUT_MS} ms`)),
            LEDGER_PROBE_TIMEOUT_MS,
          );
        }),
      ]);
      return session.up();
    } catch (error) {
      return session.down({
        message: `ledger unreachable: ${error instanceof Error ? error.message : String(error)}`,
      });
    } finally {
      clearTimeout(timer);
    }
  }
}
