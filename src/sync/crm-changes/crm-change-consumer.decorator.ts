import { DiscoveryService } from '@nestjs/core';
import type { JobContext, JobCounts } from '../../scheduler/job.types';

// Marks one reader of CRM changes inside the `crm-changes` job: `@CrmChangeConsumer('seller-requests')`.
// The name labels its metrics and its failures. Most extend ChangePagesConsumer.
export const CrmChangeConsumer = DiscoveryService.createDecorator<string>();

// Each consumer reads through the CRM port with its OWN cursor stream and moves it only after the
// page's work is committed.
export interface ChangeConsumer {
  run(ctx: JobContext): Promise<JobCounts>;
}
