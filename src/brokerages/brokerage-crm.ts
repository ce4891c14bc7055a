import type { CrmPort, CrmStageMap } from '../crm';
import type { ListingsPipelineConfig } from '../config/brokerage-config.schema';
import type { CrmFieldMapping } from '../crm/mapping/crm-field-mapping';

// Everything a flow needs to talk to one brokerage's CRM, in the port's words only.
export interface BrokerageCrm {
  brokerageId: string;
  port: CrmPort;
  // Logical pipeline/stage keys (`cash_offers` / `accept_requested`) <-> the CRM's ids.
  stages: CrmStageMap;
  // Spec property field -> where it is in the CRM (default mapping + the brokerage's overrides).
  mapping: CrmFieldMapping;
  // The brokerage's listing pipeline and trigger, as configured (CRM ids).
  listings: ListingsPipelineConfig;
  // The brokerage's `testMode`: everything it sends is marked `test: true`.
  testMode: boolean;
}
