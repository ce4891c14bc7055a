import { badRequest } from './emulator.errors';
import type { ObjectType } from './emulator.types';

// HubSpot-defined association types between the emulated objects, with their inverses.
const DEFAULT_TYPES: [from: ObjectType, to: ObjectType, typeId: number, inverse: number][] = [
  ['deals', 'contacts', 3, 4],
  ['contacts', 'notes', 201, 202],
  ['deals', 'notes', 213, 214],
  // Tasks: task to contact 204, task to deal 216 (the SDK's AssociationTypes, HubSpot's tasks guide).
  ['contacts', 'tasks', 203, 204],
  ['deals', 'tasks', 215, 216],
  // Deal to deal (HubSpot's unlabeled type 451 is its own inverse): offer records to their listing deal.
  ['deals', 'deals', 451, 451],
];

export interface TypeInfo {
  from: ObjectType;
  to: ObjectType;
  inverse: number;
  // Set for a USER_DEFINED type (an association label); HubSpot-defined types have none.
  label?: string;
}

// User-defined label type ids start here, clear of HubSpot's own ids.
const FIRST_LABEL_TYPE_ID = 1000;

const BY_ID = new Map<number, TypeInfo>();
const DEFAULT_BY_PAIR = new Map<string, number>();
for (const [from, to, typeId, inverse] of DEFAULT_TYPES) {
  BY_ID.set(typeId, { from, to, inverse });
  BY_ID.set(inverse, { from: to, to: from, inverse: typeId });
  DEFAULT_BY_PAIR.set(`${from}>${to}`, typeId);
  DEFAULT_BY_PAIR.set(`${to}>${from}`, inverse);
}

export function defaultTypeId(from: ObjectType, to: ObjectType): number {
  const typeId = DEFAULT_BY_PAIR.get(`${from}>${to}`);
  if (typeId === undefined) throw badRequest(`No default association type exists from ${from} to ${to}.`);
  return typeId;
}

export function typeInfo(typeId: number): TypeInfo | undefined {
  return BY_ID.get(typeId);
}

// Both directions are stored, as HubSpot shows an association from either side.
export class AssociationStore {
  // `${fromType}:${fromId}>${toType}` -> toId -> type ids
  private readonly links = new Map<string, Map<string, Set<number>>>();
  // Association labels defined in this portal: type id -> info (one id per direction).
  private readonly labels = new Map<number, TypeInfo>();
  private nextLabelTypeId = FIRST_LABEL_TYPE_ID;

  reset(): void {
    this.links.clear();
    this.labels.clear();
    this.nextLabelTypeId = FIRST_LABEL_TYPE_ID;
  }

  // HubSpot-defined types first, then this portal's labels.
  info(typeId: number): TypeInfo | undefined {
    return typeInfo(typeId) ?? this.labels.get(typeId);
  }

  // A new USER_DEFINED label between two types; the inverse direction gets its own type id.
  defineLabel(from: ObjectType, to: ObjectType, label: string): number {
    const existing = this.labelTypes(from, to).find((t) => t.label === label);
    if (existing) throw badRequest(`An association label "${label}" already exists from ${from} to ${to}`);
    const typeId = this.nextLabelTypeId++;
    const inverse = this.nextLabelTypeId++;
    this.labels.set(typeId, { from, to, inverse, label });
    this.labels.set(inverse, { from: to, to: from, inverse: typeId, label });
    return typeId;
  }

  labelTypes(from: ObjectType, to: ObjectType): (TypeInfo & { typeId: number })[] {
    return [...this.labels.entries()]
      .filter(([, t]) => t.from === from && t.to === to)
      .map(([typeId, t]) => ({ ...t, typeId }));
  }

  add(from: ObjectType, fromId: string, to: ObjectType, toId: string, typeId: number): void {
    const info = this.info(typeId);
    if (!info || info.from !== from || info.to !== to) {
      throw badRequest(`association type ${typeId} does not link ${from} to ${to}`);
    }
    this.side(from, fromId, to).set(toId, this.typesOf(from, fromId, to, toId).add(typeId));
    this.side(to, toId, from).set(fromId, this.typesOf(to, toId, from, fromId).add(info.inverse));
  }

  remove(from: ObjectType, fromId: string, to: ObjectType, toId: string): void {
    this.links.get(`${from}:${fromId}>${to}`)?.delete(toId);
    this.links.get(`${to}:${toId}>${from}`)?.delete(fromId);
  }

  list(from: ObjectType, fromId: string, to: ObjectType): [toId: string, typeIds: number[]][] {
    const side = this.links.get(`${from}:${fromId}>${to}`);
    if (!side) return [];
    return [...side.entries()].map(([toId, types]) => [toId, [...types]]);
  }

  // Forget every link of an archived object.
  forget(type: ObjectType, id: string): void {
    for (const key of [...this.links.keys()]) {
      if (!key.startsWith(`${type}:${id}>`)) continue;
      const toType = key.slice(key.indexOf('>') + 1) as ObjectType;
      for (const toId of this.links.get(key)!.keys()) this.links.get(`${toType}:${toId}>${type}`)?.delete(id);
      this.links.delete(key);
    }
  }

  private side(from: ObjectType, fromId: string, to: ObjectType): Map<string, Set<number>> {
    const key = `${from}:${fromId}>${to}`;
    let side = this.links.get(key);
    if (!side) {
      side = new Map();
      this.links.set(key, side);
    }
    return side;
  }

  private typesOf(from: ObjectType, fromId: string, to: ObjectType, toId: string): Set<number> {
    return this.links.get(`${from}:${fromId}>${to}`)?.get(toId) ?? new Set();
  }
}
