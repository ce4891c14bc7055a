import type { CrmChangeFilter, CrmCursor, CrmRecord } from './crm.types';

// What a CrmChangeFilter admits, read off a record as readChanges hands it back (port form). One
// reading both adapters share: HubSpot applies the filter in its search (EQ on pipeline, IN on
// dealstage, EQ, HAS_PROPERTY), Follow Up Boss partly in its query (a deal's pipelineId) and the
// rest after reading. So a caller that reads once without a filter can give each consumer exactly
// what a filtered read would have given it.
// - pipelineId: the record's pipeline is that one; a record with none is not admitted.
// - stageIds: when not empty, the record's stage is one of them.
// - propertyEquals: each property holds exactly that text. HubSpot compares free text without
//   case and numbers as numbers; the properties consumers filter on are yes/no ones, whose values
//   HubSpot itself keeps as "true"/"false", so both readings agree on them.
// - propertyHasValue: each property holds a value; an empty text is no value (HubSpot's
//   HAS_PROPERTY, and Follow Up Boss's records read "" as null).
export function matchesChangeFilter(record: CrmRecord, filter: CrmChangeFilter | undefined): boolean {
  if (!filter) return true;
  if (filter.pipelineId !== undefined && record.pipelineId !== filter.pipelineId) return false;
  if (filter.stageIds && filter.stageIds.length > 0 && !filter.stageIds.includes(record.stageId ?? ''))
    return false;
  for (const [name, value] of Object.entries(filter.propertyEquals ?? {}))
    if (record.properties[name] !== value) return false;
  for (const name of filter.propertyHasValue ?? []) if (!hasValue(record.properties[name])) return false;
  return true;
}

// The properties a filter reads, so a read made for it can ask for them.
export function changeFilterProperties(filter: CrmChangeFilter | undefined): string[] {
  return [...Object.keys(filter?.propertyEquals ?? {}), ...(filter?.propertyHasValue ?? [])];
}

function hasValue(value: string | null | undefined): boolean {
  return value !== null && value !== undefined && value !== '';
}

// (updatedAt, id) order, the order readChanges hands records back in; ids compare as numbers when
// both are (both CRMs' ids are), as text otherwise.
export function compareCrmCursor(a: CrmCursor, b: CrmCursor): number {
  const byTime = Date.parse(a.updatedAt) - Date.parse(b.updatedAt);
  if (byTime !== 0) return byTime;
  const na = Number(a.id);
  const nb = Number(b.id);
  if (Number.isFinite(na) && Number.isFinite(nb)) return na - nb;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

// Whether a read of changes from `since` hands back a record changed at `updatedAt`: everything
// when there is no cursor, else from `overlapMs` before the cursor (the window adapters read again
// on purpose, for records their search showed late).
export function withinChangeWindow(updatedAt: string, since: CrmCursor | null, overlapMs: number): boolean {
  return since === null || Date.parse(updatedAt) >= Date.parse(since.updatedAt) - overlapMs;
}
