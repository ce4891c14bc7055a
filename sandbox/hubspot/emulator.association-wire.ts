import type { AssociationStore } from './emulator.association-store';
import { defaultTypeId } from './emulator.association-store';
import { badRequest, notFound } from './emulator.errors';
import { record } from './emulator.inputs';
import type { EmulatorState } from './emulator.state';
import type { ObjectType } from './emulator.types';
import { OBJECT_TYPE_IDS } from './emulator.wire';

// Association reads are paged: `limit` defaults to (and is capped at) 500, per the v4 spec.
export const ASSOCIATION_PAGE = 500;

export function requireObject(state: EmulatorState, type: ObjectType, id: string): void {
  if (!state.objects.get(type, id)) throw notFound(`${type} ${id} does not exist`);
}

export function typeIdsFrom(body: unknown, from: ObjectType, to: ObjectType): number[] {
  if (!Array.isArray(body)) throw badRequest('the body must be an array of association types');
  const ids = body.map((spec) => Number(record(spec, 'association type').associationTypeId));
  return ids.length > 0 ? ids : [defaultTypeId(from, to)];
}

// Labelled (USER_DEFINED) types carry their label; HubSpot's own default types have none.
export function typesOut(
  store: AssociationStore,
  typeIds: number[],
): { category: string; typeId: number; label: string | null }[] {
  return typeIds.map((typeId) => {
    const label = store.info(typeId)?.label;
    return label
      ? { category: 'USER_DEFINED', typeId, label }
      : { category: 'HUBSPOT_DEFINED', typeId, label: null };
  });
}

function labelsOf(store: AssociationStore, typeIds: number[]): string[] {
  return typeIds.map((id) => store.info(id)?.label).filter((l): l is string => Boolean(l));
}

// One page of a record's links, by target id order; `after` is the last id of the previous page.
export function pageOf<T>(list: [string, T][], after: string | undefined, limit: number) {
  const sorted = [...list].sort((a, b) => Number(a[0]) - Number(b[0]));
  const start = after ? sorted.findIndex(([id]) => Number(id) > Number(after)) : 0;
  const page = start < 0 ? [] : sorted.slice(start, start + limit);
  const more = start >= 0 && start + limit < sorted.length;
  return { page, next: more ? page[page.length - 1][0] : undefined };
}

export function defaultSpec(from: ObjectType, to: ObjectType): Record<string, unknown> {
  return { associationCategory: 'HUBSPOT_DEFINED', associationTypeId: defaultTypeId(from, to) };
}

// v4 object ids are strings (LabelsBetweenObjectPair in the 2026 v4 spec).
export function labelsBetween(
  store: AssociationStore,
  from: ObjectType,
  fromId: string,
  to: ObjectType,
  toId: string,
  typeIds: number[],
): Record<string, unknown> {
  return {
    fromObjectTypeId: OBJECT_TYPE_IDS[from],
    fromObjectId: fromId,
    toObjectTypeId: OBJECT_TYPE_IDS[to],
    toObjectId: toId,
    labels: labelsOf(store, typeIds),
  };
}
