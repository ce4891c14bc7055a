import { checkDeal, withDealDefaults } from './emulator.deal-rules';
import type { PropertyProblem } from './emulator.errors';
import { HubSpotHttpError, conflict, notFound, validationError } from './emulator.errors';
import { normaliseValue } from './emulator.properties';
import { recordHistory } from './emulator.property-history';
import type { SchemaStore } from './emulator.schema-store';
import { OBJECT_TYPES } from './emulator.types';
import type { ObjectType, ObjectVersion, StoredObject, WriteSource } from './emulator.types';
import { API_SOURCE } from './emulator.write-source';

// The last-modified property each type exposes (contacts have both names).
const MODIFIED_PROPS: Record<ObjectType, string[]> = {
  contacts: ['lastmodifieddate', 'hs_lastmodifieddate'],
  deals: ['hs_lastmodifieddate'],
  notes: ['hs_lastmodifieddate'],
  tasks: ['hs_lastmodifieddate'],
};

const OWNER_PROPERTY = 'hubspot_owner_id';

// Properties a create must carry. A task's hs_timestamp is its due date, "Required" on HubSpot's
// tasks guide (https://developers.hubspot.com/docs/api/crm/tasks).
const REQUIRED_ON_CREATE: Partial<Record<ObjectType, string[]>> = { tasks: ['hs_timestamp'] };

// What a write changed, told to the webhook dispatcher: the values given that differ from before
// ('' when a value was cleared); bookkeeping properties are not part of it.
export interface ObjectChange {
  type: ObjectType;
  id: string;
  kind: 'creation' | 'propertyChange' | 'deletion';
  changed: Record<string, string>;
  at: number;
  // Who made it: webhook events carry it as changeSource.
  source: WriteSource;
}

// Records of one emulated portal, with unique-value indexes and the search index lag.
export class ObjectStore {
  // Told of every create, update and archive (the webhook dispatcher listens).
  onChange: ((change: ObjectChange) => void) | undefined;
  private readonly objects = new Map<ObjectType, Map<string, StoredObject>>();
  // HubSpot's recycle bin: archived records, listed with ?archived=true.
  private readonly archived = new Map<ObjectType, Map<string, StoredObject>>();
  // `${type}.${property}` -> value -> object id
  private readonly unique = new Map<string, Map<string, string>>();
  private nextId = 10001;
  searchIndexLagMs = 0;

  constructor(
    private readonly schema: SchemaStore,
    // Whether an owner id may be assigned (the owners API's active owners); any value when not given.
    private readonly ownerAssignable: (id: string) => boolean = () => true,
  ) {
    this.reset();
  }

  reset(): void {
    for (const type of OBJECT_TYPES) {
      this.objects.set(type, new Map());
      this.archived.set(type, new Map());
    }
    this.unique.clear();
    this.nextId = 10001;
  }

  all(type: ObjectType): Map<string, StoredObject> {
    return this.objects.get(type)!;
  }

  get(type: ObjectType, id: string): StoredObject | undefined {
    return this.all(type).get(id);
  }

  // The recycle bin of one type.
  allArchived(type: ObjectType): Map<string, StoredObject> {
    return this.archived.get(type)!;
  }

  // Finds by internal id, or by the value of a unique property when idProperty is given.
  find(type: ObjectType, id: string, idProperty?: string): StoredObject | undefined {
    if (!idProperty || idProperty === 'hs_object_id') return this.get(type, id);
    const byValue = this.uniqueIndex(type, idProperty)?.get(id);
    return byValue === undefined ? undefined : this.get(type, byValue);
  }

  require(type: ObjectType, id: string, idProperty?: string): StoredObject {
    const found = this.find(type, id, idProperty);
    if (!found) throw notFound(`Object not found.  objectId are usually numeric.`);
    return found;
  }

  // Validates names and values; returns the normalised values or throws a 400 naming each problem.
  validate(type: ObjectType, input: unknown, allowReadOnly = false): Record<string, string> {
    if (input === null || typeof input !== 'object' || Array.isArray(input)) {
      throw validationError([
        { name: 'properties', error: 'INVALID_VALUE', message: 'properties must be an object' },
      ]);
    }
    const problems: PropertyProblem[] = [];
    const values: Record<string, string> = {};
    for (const [name, raw] of Object.entries(input as Record<string, unknown>)) {
      const def = this.schema.property(type, name);
      if (!def) {
        problems.push({ name, error: 'PROPERTY_DOESNT_EXIST', message: `Property "${name}" does not exist` });
        continue;
      }
      if (def.readOnly && !allowReadOnly) {
        problems.push({
          name,
          error: 'READ_ONLY_VALUE',
          message: `"${name}" is a read only property; its value cannot be set.`,
        });
        continue;
      }
      const result = normaliseValue(def, raw);
      if (!('value' in result)) problems.push(result);
      else if (name === OWNER_PROPERTY && result.value !== '' && !this.ownerAssignable(result.value))
        // HubSpot refuses an id that is not an active owner's (a user id, a deactivated user).
        problems.push({
          name,
          error: 'INVALID_OWNER_ID',
          message: `${result.value} is not a valid owner id`,
        });
      else values[name] = result.value;
    }
    if (problems.length > 0) throw validationError(problems);
    return values;
  }

  // The checks a write makes, without writing: a batch that fails whole checks every input first.
  assertWritable(type: ObjectType, values: Record<string, string>, existing?: StoredObject): void {
    const merged = !existing && type === 'deals' ? withDealDefaults(values) : values;
    checkDeal(this.schema, type, merged, existing);
    this.checkUnique(type, merged, existing?.id ?? '');
  }

  // What a create needs besides valid values: the type's required properties.
  assertCreatable(type: ObjectType, values: Record<string, string>): void {
    const missing = (REQUIRED_ON_CREATE[type] ?? []).filter((name) => !values[name]);
    if (missing.length === 0) return;
    throw validationError(
      missing.map((name) => ({ name, error: 'REQUIRED_FIELD', message: `${name} is required` })),
    );
  }

  // `source` is who writes, for the property history: the private app's API unless told otherwise.
  create(
    type: ObjectType,
    values: Record<string, string>,
    now: number,
    source: WriteSource = API_SOURCE,
  ): StoredObject {
    this.assertCreatable(type, values);
    const id = String(this.nextId++);
    const merged = type === 'deals' ? withDealDefaults(values) : values;
    checkDeal(this.schema, type, merged, undefined);
    this.checkUnique(type, merged, id);
    const obj: StoredObject = {
      id,
      type,
      properties: {},
      history: {},
      createdAt: now,
      updatedAt: now,
      earlier: [],
    };
    this.apply(obj, merged, now, source);
    this.all(type).set(id, obj);
    this.onChange?.({ type, id, kind: 'creation', changed: { ...merged }, at: now, source });
    return obj;
  }

  update(
    obj: StoredObject,
    values: Record<string, string>,
    now: number,
    source: WriteSource = API_SOURCE,
  ): void {
    checkDeal(this.schema, obj.type, values, obj);
    this.checkUnique(obj.type, values, obj.id);
    // Search goes on showing the version before this write until this write is as old as the lag.
    // Every write reaches the index in turn (HubSpot indexes each change a few moments after it is
    // made): a record written more often than the lag is still seen moving, a lag behind. Before,
    // only a write made a lag after the one before it was indexed, so a record written every second
    // showed one version in search for good.
    if (this.searchIndexLagMs > 0) {
      const versions = [...obj.earlier, { properties: { ...obj.properties }, updatedAt: obj.updatedAt }];
      // Versions older than the newest one search already shows can never be shown again.
      const shown = versions.findLastIndex((v) => now - v.updatedAt >= this.searchIndexLagMs);
      obj.earlier = versions.slice(Math.max(shown, 0));
    }
    const changed = Object.fromEntries(
      Object.entries(values).filter(([name, value]) => (obj.properties[name] ?? '') !== value),
    );
    this.apply(obj, values, now, source);
    if (Object.keys(changed).length > 0)
      this.onChange?.({ type: obj.type, id: obj.id, kind: 'propertyChange', changed, at: now, source });
  }

  // Moves the record to the recycle bin: gone from reads and search, its unique values freed (only
  // the API archives).
  archive(obj: StoredObject, now: number): void {
    for (const [name, value] of Object.entries(obj.properties)) {
      const index = this.uniqueIndex(obj.type, name);
      if (index?.get(value) === obj.id) index.delete(value);
    }
    this.all(obj.type).delete(obj.id);
    obj.archivedAt = now;
    this.allArchived(obj.type).set(obj.id, obj);
    this.onChange?.({
      type: obj.type,
      id: obj.id,
      kind: 'deletion',
      changed: {},
      at: now,
      source: API_SOURCE,
    });
  }

  // What the search index holds for this object right now (undefined: not visible yet).
  searchView(obj: StoredObject, now: number): ObjectVersion | undefined {
    if (obj.indexAt !== undefined && now < obj.indexAt) return obj.earlier.at(-1);
    if (now - obj.updatedAt >= this.searchIndexLagMs) return obj;
    return obj.earlier.findLast((v) => now - v.updatedAt >= this.searchIndexLagMs);
  }

  // True when search shows the latest version of every record (no write is waiting for the index).
  searchCaughtUp(now: number): boolean {
    for (const type of OBJECT_TYPES)
      for (const obj of this.all(type).values()) if (this.searchView(obj, now) !== obj) return false;
    return true;
  }

  uniqueValueTaken(type: ObjectType, property: string, value: string): string | undefined {
    return this.uniqueIndex(type, property)?.get(value);
  }

  private apply(obj: StoredObject, values: Record<string, string>, now: number, source: WriteSource): void {
    recordHistory(obj, values, now, source);
    for (const [name, value] of Object.entries(values)) {
      const index = this.uniqueIndex(obj.type, name);
      const previous = obj.properties[name];
      if (index && previous !== undefined && index.get(previous) === obj.id) index.delete(previous);
      if (value === '') delete obj.properties[name];
      else {
        obj.properties[name] = value;
        index?.set(value, obj.id);
      }
    }
    obj.updatedAt = now;
    const iso = new Date(now).toISOString();
    obj.properties.hs_object_id = obj.id;
    obj.properties.createdate = new Date(obj.createdAt).toISOString();
    for (const name of MODIFIED_PROPS[obj.type]) obj.properties[name] = iso;
  }

  private uniqueIndex(type: ObjectType, property: string): Map<string, string> | undefined {
    const def = this.schema.property(type, property);
    const isUnique = def?.hasUniqueValue || (type === 'contacts' && property === 'email');
    if (!isUnique) return undefined;
    const key = `${type}.${property}`;
    let index = this.unique.get(key);
    if (!index) {
      index = new Map();
      this.unique.set(key, index);
    }
    return index;
  }

  private checkUnique(type: ObjectType, values: Record<string, string>, id: string): void {
    for (const [name, value] of Object.entries(values)) {
      if (value === '') continue;
      const owner = this.uniqueIndex(type, name)?.get(value);
      if (owner === undefined || owner === id) continue;
      if (type === 'contacts' && name === 'email') {
        throw conflict(`Contact already exists. Existing ID: ${owner}`);
      }
      throw conflict(`${name} must be unique: the value "${value}" already belongs to object ${owner}`);
    }
  }
}

export function isHubSpotError(value: unknown): value is HubSpotHttpError {
  return value instanceof HubSpotHttpError;
}
