import { Injectable } from '@nestjs/common';
import type { JobContext, JobCounts } from '../../scheduler/job.types';

// One reader of CRM changes inside the `crm-changes` job (seller requests, request updates,
// decisions, buyer leads ...). Each reads through the CRM port with its OWN cursor stream and moves
// it with CursorRepository.commitPage only after the page's work is committed.
export interface CrmChangeConsumer {
  name: string;
  run(ctx: JobContext): Promise<JobCounts>;
}

// Flows register their consumers here in onModuleInit; the job runs them in registration order.
@Injectable()
export class CrmChangeConsumers {
  private readonly consumers: CrmChangeConsumer[] = [];

  register(consumer: CrmChangeConsumer): void {
    if (this.consumers.some((c) => c.name === consumer.name))
      throw new Error(`a CRM change consumer named "${consumer.name}" is already registered`);
    this.consumers.push(consumer);
  }

  all(): CrmChangeConsumer[] {
    return [...this.consumers];
  }
}
