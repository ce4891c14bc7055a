import { DiscoveryService } from '@nestjs/core';
import type { BrokerageCrm } from '../../brokerages/brokerage-crm';
import type { ConsumedPage } from './change-pages.consumer';
import type { ChangeStream } from './change-stream';

// Marks one reader of CRM changes inside the `crm-changes` job: `@CrmChangeConsumer('seller-requests')`.
// The name labels its metrics and its failures. Most extend ChangePagesConsumer.
export const CrmChangeConsumer = DiscoveryService.createDecorator<string>();

// Each consumer has its OWN cursor stream, moved only after its work for a page is committed; the
// job reads each record kind once per run for all the consumers of that kind.
export interface ChangeConsumer {
  stream(crm: BrokerageCrm): ChangeStream;
  consumePage(page: ConsumedPage): Promise<void>;
}
