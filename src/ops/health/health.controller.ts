import { Controller, Get, NotFoundException, Param, ServiceUnavailableException } from '@nestjs/common';
import { HealthCheck, HealthCheckService, type HealthCheckResult } from '@nestjs/terminus';
import { BrokeragesHealthIndicator } from './brokerages.health';
import { LedgerHealthIndicator } from './ledger.health';

// The daemon serves no OpenAPI document of its own: `swaggerDocumentation: false` keeps terminus
// from loading @nestjs/swagger (a quarter of a second of every start) to describe these routes.
const HEALTH_CHECK = { noCache: true, swaggerDocumentation: false };

@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly ledger: LedgerHealthIndicator,
    private readonly brokerages: BrokeragesHealthIndicator,
  ) {}

  // The process is up and serving HTTP.
  @Get('live')
  @HealthCheck(HEALTH_CHECK)
  live(): Promise<HealthCheckResult> {
    return this.health.check([]);
  }

  // 503 while the ledger is unreachable or CONFIG_DIR cannot be read; a brokerage whose file failed
  // to load is listed under `unready` without failing the others.
  @Get('ready')
  @HealthCheck(HEALTH_CHECK)
  ready(): Promise<HealthCheckResult> {
    return this.health.check([() => this.ledger.check(), () => this.brokerages.check()]);
  }

  // One brokerage: 200 when it is loaded and well, 503 with its problems, 404 when it is not configured.
  @Get('ready/:brokerageId')
  brokerageReady(@Param('brokerageId') brokerageId: string): { status: 'ready'; brokerage: string } {
    const readiness = this.brokerages.brokerageReadiness(brokerageId);
    if (readiness.status === 'unknown')
      throw new NotFoundException(`no brokerage "${brokerageId}" is configured`);
    if (readiness.status === 'unready')
      throw new ServiceUnavailableException({
        status: 'unready',
        brokerage: brokerageId,
        problems: readiness.problems,
      });
    return { status: 'ready', brokerage: brokerageId };
  }
}
