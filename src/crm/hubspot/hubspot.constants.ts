import type { CrmKind } from '../crm.types';

export const HUBSPOT_OBJECT: Record<CrmKind, string> = { deal: 'deals', contact: 'contacts' };

// Deals and contacts name their last-modified property differently.
export const MODIFIED_PROPERTY: Record<CrmKind, string> = {
  deal: 'hs_lastmodifieddate',
  contact: 'lastmodifieddate',
};

export const PIPELINE_PROPERTY = 'pipeline';
export const STAGE_PROPERTY = 'dealstage';
export const ID_PROPERTY = 'hs_object_id';

// HubSpot-defined association type ids (SDK src/enums/AssociationTypes.ts).
export const NOTE_TO: Record<CrmKind, number> = { deal: 214, contact: 202 };

// Documented HubSpot limits.
export const MAX_BATCH_INPUTS = 100;
export const MAX_SEARCH_PAGE = 200;
export const MAX_ASSOCIATION_READ_INPUTS = 1000;
