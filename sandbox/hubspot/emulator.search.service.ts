import { Injectable } from '@nestjs/common';
import { badRequest } from './emulator.errors';
import { objectType, record, text } from './emulator.inputs';
import { comparable } from './emulator.properties';
import type { SchemaStore } from './emulator.schema-store';
import { EmulatorState } from './emulator.state';
import type { ObjectType, ObjectVersion, PropertyType, StoredObject } from './emulator.types';
import { toWire } from './emulator.wire';

const MAX_LIMIT = 200;
const MAX_RESULTS = 10_000;
const MAX_GROUPS = 5;
const MAX_FILTERS_PER_GROUP = 10;
const MAX_FILTERS = 25;
const EPOCH_MS = /^-?\d{1,15}$/;

interface Filter {
  propertyName: string;
  operator: string;
  value?: unknown;
  values?: unknown[];
  highValue?: unknown;
}

type Matcher = (props: Record<string, string>) => boolean;

function filterValue(type: PropertyType | undefined, raw: unknown): number | string {
  const value = text(raw);
  if ((type === 'datetime' || type === 'date') && EPOCH_MS.test(value)) return Number(value);
  return comparable(type, value);
}

function matcher(schema: SchemaStore, type: ObjectType, filter: Filter): Matcher {
  const name = filter.propertyName;
  const def = schema.property(type, name);
  if (!def) throw badRequest(`There was a problem with the request: Property "${name}" does not exist`);
  const propType = def.type;
  const get = (props: Record<string, string>): number | string | undefined =>
    props[name] === undefined || props[name] === '' ? undefined : comparable(propType, props[name]);
  const v = (): number | string => {
    if (filter.value === undefined)
      throw badRequest(`filter on ${name} with ${filter.operator} needs a value`);
    return filterValue(propType, filter.value);
  };
  const list = (): (number | string)[] => {
    if (!Array.isArray(filter.values))
      throw badRequest(`filter on ${name} with ${filter.operator} needs values`);
    return filter.values.map((x) => filterValue(propType, x));
  };
  switch (filter.operator) {
    case 'EQ': {
      const want = v();
      return (p) => get(p) === want;
    }
    case 'NEQ': {
      const want = v();
      return (p) => get(p) !== want;
    }
    case 'LT':
    case 'LTE':
    case 'GT':
    case 'GTE': {
      const want = v();
      const op = filter.operator;
      return (p) => {
        const got = get(p);
        if (got === undefined) return false;
        return op === 'LT' ? got < want : op === 'LTE' ? got <= want : op === 'GT' ? got > want : got >= want;
      };
    }
    case 'BETWEEN': {
      const low = v();
      if (filter.highValue === undefined) throw badRequest(`BETWEEN on ${name} needs highValue`);
      const high = filterValue(propType, filter.highValue);
      return (p) => {
        const got = get(p);
        return got !== undefined && got >= low && got <= high;
      };
    }
    case 'IN': {
      const set = new Set(list());
      return (p) => {
        const got = get(p);
        return got !== undefined && set.has(got);
      };
    }
    case 'NOT_IN': {
      const set = new Set(list());
      return (p) => {
        const got = get(p);
        return got === undefined || !set.has(got);
      };
    }
    case 'HAS_PROPERTY':
      return (p) => get(p) !== undefined;
    case 'NOT_HAS_PROPERTY':
      return (p) => get(p) === undefined;
    case 'CONTAINS_TOKEN':
    case 'NOT_CONTAINS_TOKEN': {
      const token = text(filter.value).toLowerCase().replace(/\*/g, '');
      const wanted = filter.operator === 'CONTAINS_TOKEN';
      return (p) =>
        String(p[name] ?? '')
          .toLowerCase()
          .includes(token) === wanted;
    }
    default:
      throw badRequest(`Unknown filter operator: ${filter.operator}`);
  }
}

function groupsMatcher(schema: SchemaStore, type: ObjectType, raw: unknown): Matcher {
  if (raw === undefined) return () => true;
  if (!Array.isArray(raw)) throw badRequest('filterGroups must be an array');
  if (raw.length > MAX_GROUPS)
    throw badRequest(`Too many filter groups: ${raw.length}; the limit is ${MAX_GROUPS}`);
  let total = 0;
  const groups = raw.map((g) => {
    const filters = record(g, 'filterGroup').filters;
    if (!Array.isArray(filters)) throw badRequest('each filter group needs filters');
    if (filters.length > MAX_FILTERS_PER_GROUP) {
      throw badRequest(
        `Too many filters in a group: ${filters.length}; the limit is ${MAX_FILTERS_PER_GROUP}`,
      );
    }
    total += filters.length;
    return filters.map((f) => matcher(schema, type, record(f, 'filter') as unknown as Filter));
  });
  if (total > MAX_FILTERS) throw badRequest(`Too many filters: ${total}; the limit is ${MAX_FILTERS}`);
  if (groups.length === 0) return () => true;
  return (p) => groups.some((group) => group.every((m) => m(p)));
}

// One sort: "prop", "-prop" or { propertyName, direction }. Ties go by id, ascending.
function sorter(schema: SchemaStore, type: ObjectType, raw: unknown): (a: Hit, b: Hit) => number {
  const byId = (a: Hit, b: Hit): number => Number(a.obj.id) - Number(b.obj.id);
  if (!Array.isArray(raw) || raw.length === 0) return byId;
  const first: unknown = raw[0];
  let name: string;
  let descending = false;
  if (typeof first === 'string') {
    descending = first.startsWith('-');
    name = descending ? first.slice(1) : first;
  } else {
    const spec = record(first, 'sort');
    name = String(spec.propertyName);
    descending = spec.direction === 'DESCENDING';
  }
  const def = schema.property(type, name);
  if (!def) throw badRequest(`Cannot sort on unknown property "${name}"`);
  const key = (h: Hit): number | string | undefined =>
    h.view.properties[name] === undefined ? undefined : comparable(def.type, h.view.properties[name]);
  return (a, b) => {
    const ka = key(a);
    const kb = key(b);
    if (ka === kb) return byId(a, b);
    if (ka === undefined) return 1;
    if (kb === undefined) return -1;
    const order = ka < kb ? -1 : 1;
    return descending ? -order : order;
  };
}

interface Hit {
  obj: StoredObject;
  view: ObjectVersion;
}

// POST /crm/v3/objects/{type}/search over what the index shows (writes younger than the lag are not
// seen yet), with HubSpot's limits on filters, page size and depth.
@Injectable()
export class SearchService {
  constructor(private readonly state: EmulatorState) {}

  search(typeSegment: string, rawBody: unknown): Record<string, unknown> {
    const now = Date.now();
    const type = objectType(typeSegment);
    const body = record(rawBody ?? {}, 'request body');
    const limit = body.limit === undefined ? 10 : Number(body.limit);
    if (!Number.isInteger(limit) || limit < 0 || limit > MAX_LIMIT) {
      throw badRequest(`limit must be between 0 and ${MAX_LIMIT}; it was ${String(body.limit)}`);
    }
    const offset =
      body.after === undefined || body.after === null || body.after === '' ? 0 : Number(body.after);
    if (!Number.isInteger(offset) || offset < 0)
      throw badRequest(`after must be a number; it was ${String(body.after)}`);
    if (offset >= MAX_RESULTS) {
      throw badRequest(
        `The search API can page through at most ${MAX_RESULTS} results; after=${offset} is beyond it.`,
      );
    }
    const matches = groupsMatcher(this.state.schema, type, body.filterGroups);
    const query = typeof body.query === 'string' ? body.query.toLowerCase() : '';
    const hits: Hit[] = [];
    for (const obj of this.state.objects.all(type).values()) {
      const view = this.state.objects.searchView(obj, now);
      if (!view || !matches(view.properties)) continue;
      if (query && !Object.values(view.properties).some((v) => v.toLowerCase().includes(query))) continue;
      hits.push({ obj, view });
    }
    hits.sort(sorter(this.state.schema, type, body.sorts));
    const end = Math.min(offset + limit, hits.length, MAX_RESULTS);
    const properties = Array.isArray(body.properties) ? body.properties.map(String) : undefined;
    const results = hits.slice(offset, end).map((h) => toWire(h.obj, h.view, properties));
    const hasNext = end < hits.length && end < MAX_RESULTS;
    return { total: hits.length, results, ...(hasNext ? { paging: { next: { after: String(end) } } } : {}) };
  }
}
