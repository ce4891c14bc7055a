import type { HistoryEntry, StoredObject, WriteSource } from './emulator.types';

// The history of each property of a record, as HubSpot keeps it and `propertiesWithHistory` serves it
// (HubSpot's batch read reference,
// https://developers.hubspot.com/docs/api-reference/latest/crm/objects/objects/batch/get-objects):
// every value a write sets that differs from the one before, newest first, with when and by whom.

// Bookkeeping the store itself sets on every write: no history kept.
const NO_HISTORY: ReadonlySet<string> = new Set([
  'hs_lastmodifieddate',
  'lastmodifieddate',
  'hs_object_id',
  'createdate',
]);

// Adds an entry for each value that differs from the property's current one ('' for a cleared
// value); a value written again unchanged adds none. Call before the values are applied.
export function recordHistory(
  obj: StoredObject,
  values: Record<string, string>,
  now: number,
  source: WriteSource,
): void {
  for (const [name, value] of Object.entries(values)) {
    if (NO_HISTORY.has(name) || (obj.properties[name] ?? '') === value) continue;
    const entries = (obj.history[name] ??= []);
    entries.unshift({ value, timestamp: now, ...source });
  }
}

export interface HistoryEntryWire {
  value: string;
  timestamp: string;
  sourceType: string;
  sourceId?: string;
  updatedByUserId?: number;
}

// The `propertiesWithHistory` block for the names asked: an empty list for a property never set
// (or unknown: reads do not refuse unknown names in `properties` either).
export function historyBlock(obj: StoredObject, names: string[]): Record<string, HistoryEntryWire[]> {
  return Object.fromEntries(names.map((name) => [name, (obj.history[name] ?? []).map(entryWire)]));
}

function entryWire(entry: HistoryEntry): HistoryEntryWire {
  const { value, timestamp, sourceType, sourceId, updatedByUserId } = entry;
  return {
    value,
    timestamp: new Date(timestamp).toISOString(),
    sourceType,
    ...(sourceId !== undefined ? { sourceId } : {}),
    ...(updatedByUserId !== undefined ? { updatedByUserId } : {}),
  };
}
