import { HubSpotHttpError, badRequest, notFound } from './emulator.errors';
import type { AssociationStore } from './emulator.association-store';
import { defaultTypeId } from './emulator.association-store';
import type { Route, RouteContext, RouteResult } from './emulator.route';
import { OBJECT_TYPE_IDS, batchEnvelope, batchInputs, objectType, record, text } from './emulator.route';
import type { ObjectType } from './emulator.types';

const V4 = '/crm/v4/objects/([^/]+)/([^/]+)/associations';
const V4_BATCH = '/crm/v4/associations/([^/]+)/([^/]+)/batch';
const V4_LABELS = '/crm/v4/associations/([^/]+)/([^/]+)/labels';
// Association reads are paged: `limit` defaults to (and is capped at) 500, per the v4 spec.
const ASSOCIATION_PAGE = 500;

function requireObject(ctx: RouteContext, type: ObjectType, id: string): void {
  if (!ctx.state.objects.get(type, id)) throw notFound(`${type} ${id} does not exist`);
}

function typeIdsFrom(body: unknown, from: ObjectType, to: ObjectType): number[] {
  if (!Array.isArray(body)) throw badRequest('the body must be an array of association types');
  const ids = body.map((spec) => Number(record(spec, 'association type').associationTypeId));
  return ids.length > 0 ? ids : [defaultTypeId(from, to)];
}

// Labelled (USER_DEFINED) types carry their label; HubSpot's own default types have none.
function typesOut(
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
function pageOf<T>(list: [string, T][], after: string | undefined, limit: number) {
  const sorted = [...list].sort((a, b) => Number(a[0]) - Number(b[0]));
  const start = after ? sorted.findIndex(([id]) => Number(id) > Number(after)) : 0;
  const page = start < 0 ? [] : sorted.slice(start, start + limit);
  const more = start >= 0 && start + limit < sorted.length;
  return { page, next: more ? page[page.length - 1][0] : undefined };
}

function defaultSpec(from: ObjectType, to: ObjectType): Record<string, unknown> {
  return { associationCategory: 'HUBSPOT_DEFINED', associationTypeId: defaultTypeId(from, to) };
}

function createDefault(ctx: RouteContext): RouteResult {
  const started = Date.now();
  const [fromSeg, fromId, toSeg, toId] = ctx.params;
  const from = objectType(fromSeg);
  const to = objectType(toSeg);
  requireObject(ctx, from, fromId);
  requireObject(ctx, to, toId);
  ctx.state.associations.add(from, fromId, to, toId, defaultTypeId(from, to));
  const results = [
    { associationSpec: defaultSpec(from, to), from: { id: fromId }, to: { id: toId } },
    { associationSpec: defaultSpec(to, from), from: { id: toId }, to: { id: fromId } },
  ];
  return { status: 200, body: batchEnvelope(results, [], started) };
}

function createLabelled(ctx: RouteContext): RouteResult {
  const [fromSeg, fromId, toSeg, toId] = ctx.params;
  const from = objectType(fromSeg);
  const to = objectType(toSeg);
  requireObject(ctx, from, fromId);
  requireObject(ctx, to, toId);
  const typeIds = typeIdsFrom(ctx.body, from, to);
  for (const typeId of typeIds) ctx.state.associations.add(from, fromId, to, toId, typeId);
  return { status: 201, body: labelsBetween(ctx.state.associations, from, fromId, to, toId, typeIds) };
}

// v4 object ids are strings (LabelsBetweenObjectPair in the 2026 v4 spec).
function labelsBetween(
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

function getPage(ctx: RouteContext): RouteResult {
  const [fromSeg, fromId, toSeg] = ctx.params;
  const from = objectType(fromSeg);
  requireObject(ctx, from, fromId);
  const list = ctx.state.associations.list(from, fromId, objectType(toSeg));
  const limit = Math.min(
    Number(ctx.query.get('limit') ?? ASSOCIATION_PAGE) || ASSOCIATION_PAGE,
    ASSOCIATION_PAGE,
  );
  const { page, next } = pageOf(list, ctx.query.get('after') ?? undefined, limit);
  return {
    status: 200,
    body: {
      results: page.map(([toId, typeIds]) => ({
        toObjectId: toId,
        associationTypes: typesOut(ctx.state.associations, typeIds),
      })),
      ...(next ? { paging: { next: { after: next, link: `?after=${next}` } } } : {}),
    },
  };
}

function archivePair(ctx: RouteContext): RouteResult {
  const [fromSeg, fromId, toSeg, toId] = ctx.params;
  ctx.state.associations.remove(objectType(fromSeg), fromId, objectType(toSeg), toId);
  return { status: 204 };
}

function pairOf(input: Record<string, unknown>): [string, string] {
  const fromId = String(record(input.from, 'from').id);
  const toId = String(record(input.to, 'to').id);
  return [fromId, toId];
}

function pairError(error: unknown, fromId: string, toId: string): Record<string, unknown> {
  if (!(error instanceof HubSpotHttpError)) throw error;
  const body = error.body();
  delete body.correlationId;
  return { ...body, context: { fromObjectId: [fromId], toObjectId: [toId] } };
}

// The spec gives this call no 207: one bad pair fails the whole batch with that pair's error
// (naming the pair) and nothing is linked.
function batchDefault(ctx: RouteContext): RouteResult {
  const started = Date.now();
  const from = objectType(ctx.params[0]);
  const to = objectType(ctx.params[1]);
  const typeId = defaultTypeId(from, to);
  const pairs = batchInputs(ctx.body, 2000).map(pairOf);
  for (const [fromId, toId] of pairs) {
    try {
      requireObject(ctx, from, fromId);
      requireObject(ctx, to, toId);
    } catch (error) {
      if (!(error instanceof HubSpotHttpError)) throw error;
      throw new HubSpotHttpError(error.status, error.category, error.message, {
        context: { fromObjectId: [fromId], toObjectId: [toId] },
      });
    }
  }
  const results = pairs.map(([fromId, toId]) => {
    ctx.state.associations.add(from, fromId, to, toId, typeId);
    return { associationSpec: defaultSpec(from, to), from: { id: fromId }, to: { id: toId } };
  });
  return { status: 200, body: batchEnvelope(results, [], started) };
}

function batchCreate(ctx: RouteContext): RouteResult {
  const started = Date.now();
  const from = objectType(ctx.params[0]);
  const to = objectType(ctx.params[1]);
  const results: unknown[] = [];
  const errors: unknown[] = [];
  for (const input of batchInputs(ctx.body, 2000)) {
    const [fromId, toId] = pairOf(input);
    try {
      requireObject(ctx, from, fromId);
      requireObject(ctx, to, toId);
      for (const typeId of typeIdsFrom(input.types ?? [], from, to)) {
        ctx.state.associations.add(from, fromId, to, toId, typeId);
      }
      const typeIds = ctx.state.associations.list(from, fromId, to).find(([id]) => id === toId)?.[1] ?? [];
      results.push(labelsBetween(ctx.state.associations, from, fromId, to, toId, typeIds));
    } catch (error) {
      errors.push(pairError(error, fromId, toId));
    }
  }
  return { status: errors.length > 0 ? 207 : 201, body: batchEnvelope(results, errors, started) };
}

// Ids without any association come back as errors in a 207, as HubSpot does.
function batchRead(ctx: RouteContext): RouteResult {
  const started = Date.now();
  const from = objectType(ctx.params[0]);
  const to = objectType(ctx.params[1]);
  const results: unknown[] = [];
  const errors: unknown[] = [];
  for (const input of batchInputs(ctx.body, 1000)) {
    const id = String(input.id);
    const list = ctx.state.associations.list(from, id, to);
    const after = input.after === undefined ? undefined : text(input.after);
    if (list.length === 0) {
      errors.push({
        status: 'error',
        category: 'OBJECT_NOT_FOUND',
        message: `No ${to} is associated with ${from} ${id}.`,
        context: { fromObjectId: [id] },
      });
      continue;
    }
    const { page, next } = pageOf(list, after, ASSOCIATION_PAGE);
    results.push({
      from: { id },
      to: page.map(([toId, typeIds]) => ({
        toObjectId: toId,
        associationTypes: typesOut(ctx.state.associations, typeIds),
      })),
      ...(next ? { paging: { next: { after: next } } } : {}),
    });
  }
  return { status: errors.length > 0 ? 207 : 200, body: batchEnvelope(results, errors, started) };
}

function batchArchive(ctx: RouteContext): RouteResult {
  const from = objectType(ctx.params[0]);
  const to = objectType(ctx.params[1]);
  for (const input of batchInputs(ctx.body, 2000)) {
    const fromId = String(record(input.from, 'from').id);
    const targets = Array.isArray(input.to) ? input.to : [];
    for (const target of targets)
      ctx.state.associations.remove(from, fromId, to, String(record(target, 'to').id));
  }
  return { status: 204 };
}

function labelsOut(store: AssociationStore, from: ObjectType, to: ObjectType): Record<string, unknown>[] {
  return store
    .labelTypes(from, to)
    .map((t) => ({ category: 'USER_DEFINED', typeId: t.typeId, label: t.label }));
}

function listLabels(ctx: RouteContext): RouteResult {
  const from = objectType(ctx.params[0]);
  const to = objectType(ctx.params[1]);
  const defaults = { category: 'HUBSPOT_DEFINED', typeId: defaultTypeId(from, to), label: null };
  return { status: 200, body: { results: [defaults, ...labelsOut(ctx.state.associations, from, to)] } };
}

// `{ label, name }` defines a USER_DEFINED type; the answer lists the new type ids.
function createLabel(ctx: RouteContext): RouteResult {
  const from = objectType(ctx.params[0]);
  const to = objectType(ctx.params[1]);
  const body = record(ctx.body, 'request body');
  if (typeof body.label !== 'string' || body.label === '') throw badRequest('label is required');
  const typeId = ctx.state.associations.defineLabel(from, to, body.label);
  const inverse = ctx.state.associations.info(typeId)!.inverse;
  return {
    status: 200,
    body: {
      results: [
        { category: 'USER_DEFINED', typeId, label: body.label },
        { category: 'USER_DEFINED', typeId: inverse, label: body.label },
      ],
    },
  };
}

export const ASSOCIATION_ROUTES: Route[] = [
  { method: 'GET', pattern: new RegExp(`^${V4_LABELS}$`), handle: listLabels },
  { method: 'POST', pattern: new RegExp(`^${V4_LABELS}$`), handle: createLabel },
  { method: 'PUT', pattern: new RegExp(`^${V4}/default/([^/]+)/([^/]+)$`), handle: createDefault },
  { method: 'PUT', pattern: new RegExp(`^${V4}/([^/]+)/([^/]+)$`), handle: createLabelled },
  { method: 'GET', pattern: new RegExp(`^${V4}/([^/]+)$`), handle: getPage },
  { method: 'DELETE', pattern: new RegExp(`^${V4}/([^/]+)/([^/]+)$`), handle: archivePair },
  { method: 'POST', pattern: new RegExp(`^${V4_BATCH}/associate/default$`), handle: batchDefault },
  { method: 'POST', pattern: new RegExp(`^${V4_BATCH}/create$`), handle: batchCreate },
  { method: 'POST', pattern: new RegExp(`^${V4_BATCH}/read$`), handle: batchRead },
  { method: 'POST', pattern: new RegExp(`^${V4_BATCH}/archive$`), handle: batchArchive },
];
