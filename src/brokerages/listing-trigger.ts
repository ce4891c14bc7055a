import type { ListingsPipelineConfig } from '../config/brokerage-config.schema';
import { REQUEST_TRIGGER_PROPERTY } from '../crm/crm-schema';

// The deal property whose truth requests a cash offer: the configured one, or setup-crm's "Request
// cash offer" checkbox when no trigger stage is configured either. Undefined: the stage alone
// triggers.
export function listingTriggerProperty(listings: ListingsPipelineConfig): string | undefined {
  return listings.triggerProperty ?? (listings.triggerStageId ? undefined : REQUEST_TRIGGER_PROPERTY);
}
