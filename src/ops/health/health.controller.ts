import { Controller, Get } from '@nestjs/common';
import { HealthCheck, HealthCheckService, type HealthCheckResult } from '@nestjs/terminus';
import { BrokeragesHealthIndicator } from './brokerages.health';
import { LedgerHealthIndicator } from './ledger.health';

@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly ledger: LedgerHealthIndicator,
    private readonly brokerages: BrokeragesHealthIndicator,
  ) {}

  // The process is up and serving HTTP.
  @Get('live')
  @HealthCheck()
  live(): Promise<HealthCheckResult> {
    return this.health.check([]);
  }

  // 503 while the ledger is unreachable or the config is invalid.
  @Get('ready')
  @HealthCheck()
  ready(): Promise<HealthCheckResult> {
    return this.health.check([() => this.ledger.check(), () => this.brokerages.check()]);
  }
}
