import { Injectable, type OnModuleInit } from '@nestjs/common';
import { Gauge } from 'prom-client';
import { ConfigService } from '../config/config.service';
import { PauseRepository, WHOLE_BROKERAGE } from '../ledger';
import { MetricsService } from '../observability/metrics/metrics.service';
import { JOB_NAMES } from './job.types';

// cash_offer_sync_job_paused{brokerage, job}: 1 while the operator has paused the job (or its whole
// brokerage), 0 otherwise; read from the ledger at scrape time, so a pause from the CLI shows at once.
// Here beside the pauses, not in ops/metrics, so that metrics need not know the jobs.
@Injectable()
export class JobPauseCollector implements OnModuleInit {
  constructor(
    private readonly metrics: MetricsService,
    private readonly config: ConfigService,
    private readonly pauses: PauseRepository,
  ) {}

  onModuleInit(): void {
    const read = () => this.read();
    const gauge: Gauge<'brokerage' | 'job'> = new Gauge({
      name: 'cash_offer_sync_job_paused',
      help: 'Whether the operator paused this job or its brokerage (1) or not (0)',
      labelNames: ['brokerage', 'job'],
      registers: [this.metrics.registry],
      async collect() {
        const values = await read().catch(() => undefined);
        if (!values) return;
        gauge.reset();
        for (const v of values) gauge.set({ brokerage: v.brokerageId, job: v.job }, v.paused ? 1 : 0);
      },
    });
  }

  async read(): Promise<{ brokerageId: string; job: string; paused: boolean }[]> {
    const pauses = await this.pauses.list();
    // A handful of pauses at most: no key to build, the pair is compared as it is.
    const paused = (brokerageId: string, job: string) =>
      pauses.some((p) => p.brokerageId === brokerageId && (p.job === WHOLE_BROKERAGE || p.job === job));
    return this.config
      .brokerages()
      .flatMap(({ id }) => JOB_NAMES.map((job) => ({ brokerageId: id, job, paused: paused(id, job) })));
  }
}
