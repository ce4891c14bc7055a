import type { CallMatch } from '../call-match';
// The emulator's own records. Wire shapes are built from these by the services.
export type ObjectType = 'contacts' | 'deals' | 'notes' | 'tasks';
export const OBJECT_TYPES: readonly ObjectType[] = ['contacts', 'deals', 'notes', 'tasks'];

export type PropertyType = 'string' | 'number' | 'date' | 'datetime' | 'enumeration' | 'bool';

export interface PropertyOption {
  label: string;
  value: string;
  hidden: boolean;
  displayOrder: number;
  description?: string;
}

export interface PropertyDef {
  name: string;
  label: string;
  type: PropertyType;
  fieldType: string;
  groupName: string;
  description: string;
  options: PropertyOption[];
  hasUniqueValue: boolean;
  hubspotDefined: boolean;
  readOnly: boolean;
  displayOrder: number;
  hidden: boolean;
  formField: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface GroupDef {
  name: string;
  label: string;
  displayOrder: number;
  archived: boolean;
}

export interface StageDef {
  id: string;
  label: string;
  displayOrder: number;
  metadata: Record<string, string>;
  createdAt: string;
  updatedAt: string;
  // Archived stages stay listed with archived: true; records cannot move into them.
  archived?: boolean;
  archivedAt?: string;
}

export interface PipelineDef {
  id: string;
  label: string;
  displayOrder: number;
  stages: StageDef[];
  createdAt: string;
  updatedAt: string;
}

export interface ObjectVersion {
  properties: Record<string, string>;
  updatedAt: number;
}

// Who wrote a value, in the words of HubSpot's property history (emulator.write-source.ts).
export interface WriteSource {
  sourceType: string;
  sourceId?: string;
  updatedByUserId?: number;
}

// One value a property held: when it was set (epoch ms) and by whom ('' when it was cleared).
export interface HistoryEntry extends WriteSource {
  value: string;
  timestamp: number;
}

export interface StoredObject {
  id: string;
  type: ObjectType;
  properties: Record<string, string>;
  // Each property's values, newest first, as `propertiesWithHistory` lists them.
  history: Record<string, HistoryEntry[]>;
  createdAt: number;
  updatedAt: number;
  // The versions before the latest write that search may still show, oldest first: each write
  // reaches the index the indexing lag after it was made, so search shows the newest version at least
  // that old (none yet: the record is not found).
  earlier: ObjectVersion[];
  // Search shows this write no earlier than this time, whatever its timestamp (a slow index).
  indexAt?: number;
  // Set when the record is in the recycle bin.
  archivedAt?: number;
}

export interface RequestLogEntry {
  method: string;
  path: string;
  status: number;
  time: string;
  durationMs: number;
}

export interface Faults {
  errorRate: number;
  errorStatus: number;
  burst429: number;
  // The next N calls answer 423 Locked, as HubSpot does when a large volume is synced in a short time
  // (developers.hubspot.com/docs/api-reference/error-handling: "locks will last for 2 seconds").
  burst423: number;
  // The next N calls answer 477 Migration in Progress with Retry-After: retryAfter477Seconds, as
  // HubSpot does while the account moves between data hosting locations (same page).
  burst477: number;
  retryAfter477Seconds: number;
  latencyMs: number;
  // Share of calls handled and stored, then answered errorAfterCommitStatus instead of their answer:
  // a gateway in front of the API that loses the answer on its way back (a 502 or 504 from the load
  // balancer, or a connection reset) after the write landed. The client cannot tell it from a call
  // that did nothing (docs/sandbox.md).
  errorAfterCommitRate: number;
  errorAfterCommitStatus: number;
  // Only calls whose `<METHOD> <path>` starts with this (or with one of these) take errorRate and
  // errorAfterCommitRate (`POST /crm/v3/objects/tasks`); null: every call.
  match: CallMatch;
}

export interface RateLimitSetting {
  max: number;
  intervalMs: number;
}
