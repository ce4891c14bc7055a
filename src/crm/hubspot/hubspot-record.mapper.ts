import type { CrmCursor, CrmKind, CrmPlacement, CrmProperties, CrmRecord } from '../crm.types';
import { MODIFIED_PROPERTY, PIPELINE_PROPERTY, STAGE_PROPERTY } from './hubspot.constants';

// The parts of the SDK's SimplePublicObject the adapter reads.
export interface HubSpotObjectLike {
  id: string;
  properties: Record<string, string | null>;
  createdAt?: Date;
  updatedAt?: Date;
}

export function toCrmRecord(kind: CrmKind, obj: HubSpotObjectLike): CrmRecord {
  const props = obj.properties;
  const modified = props[MODIFIED_PROPERTY[kind]];
  const record: CrmRecord = {
    id: obj.id,
    kind,
    properties: { ...props },
    updatedAt: modified ? new Date(modified).toISOString() : (obj.updatedAt ?? new Date(0)).toISOString(),
    ...(obj.createdAt ? { createdAt: obj.createdAt.toISOString() } : {}),
  };
  if (kind === 'deal') {
    if (props[PIPELINE_PROPERTY]) record.pipelineId = props[PIPELINE_PROPERTY];
    if (props[STAGE_PROPERTY]) record.stageId = props[STAGE_PROPERTY];
  }
  return record;
}

// HubSpot clears a value given an empty string; the port says null.
export function toHubSpotProperties(
  kind: CrmKind,
  properties: CrmProperties,
  placement: CrmPlacement,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(properties)) out[name] = value ?? '';
  if (kind === 'deal') {
    if (placement.pipelineId !== undefined) out[PIPELINE_PROPERTY] = placement.pipelineId;
    if (placement.stageId !== undefined) out[STAGE_PROPERTY] = placement.stageId;
  }
  return out;
}

export function cursorOf(record: CrmRecord): CrmCursor {
  return { updatedAt: record.updatedAt, id: record.id };
}
