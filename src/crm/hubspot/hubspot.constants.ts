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
// Who owns a record or activity: an owner id of the owners API (https://developers.hubspot.com/docs/api/crm/owners).
export const OWNER_PROPERTY = 'hubspot_owner_id';

// HubSpot-defined association type ids (SDK src/enums/AssociationTypes.ts).
export const NOTE_TO: Record<CrmKind, number> = { deal: 214, contact: 202 };
export const TASK_TO: Record<CrmKind, number> = { deal: 216, contact: 204 };

// Tasks (HubSpot's tasks guide, https://developers.hubspot.com/docs/api/crm/tasks): status is
// "either COMPLETED or NOT_STARTED"; hs_timestamp is the due date.
export const TASK_OBJECT = 'tasks';
export const TASK_NOT_STARTED = 'NOT_STARTED';
export const TASK_COMPLETED = 'COMPLETED';
export const TASK_PROPERTIES = ['hs_task_subject', 'hs_task_body', 'hs_task_status', 'hs_timestamp'] as const;

// Documented HubSpot limits.
export const MAX_BATCH_INPUTS = 100;
// A batch read that asks for property history (PipedreamHQ/pipedream#8462 quotes HubSpot's 400).
export const MAX_HISTORY_BATCH_INPUTS = 50;
export const MAX_SEARCH_PAGE = 200;
export const MAX_ASSOCIATION_READ_INPUTS = 1000;
