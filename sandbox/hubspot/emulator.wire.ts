import { ALWAYS_RETURNED, DEFAULT_READ_PROPERTIES } from './emulator.properties';
import type { AssociationStore } from './emulator.association-store';
import { historyBlock } from './emulator.property-history';
import type { ObjectType, ObjectVersion, StoredObject } from './emulator.types';

// HubSpot's ids of the object types, as v4 association answers name them.
export const OBJECT_TYPE_IDS: Record<ObjectType, string> = {
  contacts: '0-1',
  deals: '0-3',
  notes: '0-46',
  tasks: '0-27',
};

// Requested properties plus the ones HubSpot always returns; a requested empty property is null.
export function selectProperties(
  type: ObjectType,
  stored: Record<string, string>,
  requested: string[] | undefined,
): Record<string, string | null> {
  const names =
    requested && requested.length > 0
      ? [...requested, ...ALWAYS_RETURNED[type]]
      : DEFAULT_READ_PROPERTIES[type];
  const out: Record<string, string | null> = {};
  for (const name of names) out[name] = stored[name] ?? null;
  return out;
}

// `withHistory`: the names `propertiesWithHistory` asked for; none asked, no such key (as HubSpot).
export function toWire(
  obj: StoredObject,
  version: ObjectVersion,
  requested: string[] | undefined,
  withHistory?: string[],
): Record<string, unknown> {
  return {
    id: obj.id,
    properties: selectProperties(obj.type, version.properties, requested),
    ...(withHistory && withHistory.length > 0
      ? { propertiesWithHistory: historyBlock(obj, withHistory) }
      : {}),
    createdAt: new Date(obj.createdAt).toISOString(),
    updatedAt: new Date(version.updatedAt).toISOString(),
    archived: obj.archivedAt !== undefined,
    ...(obj.archivedAt !== undefined ? { archivedAt: new Date(obj.archivedAt).toISOString() } : {}),
  };
}

// The `associations` block of getById/getPage (v3 shape).
export function associationsBlock(
  links: AssociationStore,
  obj: StoredObject,
  toTypes: ObjectType[] | undefined,
): Record<string, unknown> | undefined {
  if (!toTypes || toTypes.length === 0) return undefined;
  const block: Record<string, unknown> = {};
  for (const to of toTypes) {
    const list = links.list(obj.type, obj.id, to);
    if (list.length === 0) continue;
    block[to] = {
      results: list.flatMap(([id, typeIds]) =>
        typeIds.map((typeId) => ({ id, type: `${obj.type.slice(0, -1)}_to_${to.slice(0, -1)}`, typeId })),
      ),
    };
  }
  return block;
}

// The envelope of every batch answer; errors appear only when there are some.
export function batchEnvelope(
  results: unknown[],
  errors: unknown[],
  startedAt: number,
): Record<string, unknown> {
  const completedAt = new Date().toISOString();
  return {
    status: 'COMPLETE',
    results,
    ...(errors.length > 0 ? { numErrors: errors.length, errors } : {}),
    startedAt: new Date(startedAt).toISOString(),
    completedAt,
  };
}
