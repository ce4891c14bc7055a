import { HubSpotHttpError, badRequest, notFound } from './emulator.errors';
import { defaultTypeId } from './emulator.association-store';
import type { Route, RouteContext, RouteResult } from './emulator.route';
import { OBJECT_TYPE_IDS, batchEnvelope, batchInputs, objectType, record } from './emulator.route';
import type { ObjectType } from './emulator.types';

const V4 = '/crm/v4/objects/([^/]+)/([^/]+)/associations';
const V4_BATCH = '/crm/v4/associations/([^/]+)/([^/]+)/batch';

function requireObject(ctx: RouteContext, type: ObjectType, id: string): void {
  if (!ctx.state.objects.get(type, id)) throw notFound(`${type} ${id} does not exist`);
}

function typeIdsFrom(body: unknown, from: ObjectType, to: ObjectType): number[] {
  if (!Array.isArray(body)) throw badRequest('the body must be an array of association types');
  const ids = body.map((spec) => Number(record(spec, 'association type').associationTypeId));
  return ids.length > 0 ? ids : [defaultTypeId(from, to)];
}

function typesOut(typeIds: number[]): { category: string; typeId: number; label: null }[] {
  return typeIds.map((typeId) => ({ category: 'HUBSPOT_DEFINED', typeId, label: null }));
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
  for (const typeId of typeIdsFrom(ctx.body, from, to))
    ctx.state.associations.add(from, fromId, to, toId, typeId);
  return {
    status: 201,
    body: {
      fromObjectTypeId: OBJECT_TYPE_IDS[from],
      fromObjectId: Number(fromId),
      toObjectTypeId: OBJECT_TYPE_IDS[to],
      toObjectId: Number(toId),
      labels: [],
    },
  };
}

function getPage(ctx: RouteContext): RouteResult {
  const [fromSeg, fromId, toSeg] = ctx.params;
  const from = objectType(fromSeg);
  requireObject(ctx, from, fromId);
  const list = ctx.state.associations.list(from, fromId, objectType(toSeg));
  return {
    status: 200,
    body: {
      results: list.map(([toId, typeIds]) => ({
        toObjectId: Number(toId),
        associationTypes: typesOut(typeIds),
      })),
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

function batchDefault(ctx: RouteContext): RouteResult {
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
      ctx.state.associations.add(from, fromId, to, toId, defaultTypeId(from, to));
      results.push({ associationSpec: defaultSpec(from, to), from: { id: fromId }, to: { id: toId } });
    } catch (error) {
      errors.push(pairError(error, fromId, toId));
    }
  }
  return { status: 200, body: batchEnvelope(results, errors, started) };
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
      results.push({
        fromObjectTypeId: OBJECT_TYPE_IDS[from],
        fromObjectId: Number(fromId),
        toObjectTypeId: OBJECT_TYPE_IDS[to],
        toObjectId: Number(toId),
        labels: [],
      });
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
    if (list.length === 0) {
      errors.push({
        status: 'error',
        category: 'OBJECT_NOT_FOUND',
        message: `No ${to} is associated with ${from} ${id}.`,
        context: { fromObjectId: [id] },
      });
      continue;
    }
    results.push({
      from: { id },
      to: list.map(([toId, typeIds]) => ({ toObjectId: Number(toId), associationTypes: typesOut(typeIds) })),
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

export const ASSOCIATION_ROUTES: Route[] = [
  { method: 'PUT', pattern: new RegExp(`^${V4}/default/([^/]+)/([^/]+)$`), handle: createDefault },
  { method: 'PUT', pattern: new RegExp(`^${V4}/([^/]+)/([^/]+)$`), handle: createLabelled },
  { method: 'GET', pattern: new RegExp(`^${V4}/([^/]+)$`), handle: getPage },
  { method: 'DELETE', pattern: new RegExp(`^${V4}/([^/]+)/([^/]+)$`), handle: archivePair },
  { method: 'POST', pattern: new RegExp(`^${V4_BATCH}/associate/default$`), handle: batchDefault },
  { method: 'POST', pattern: new RegExp(`^${V4_BATCH}/create$`), handle: batchCreate },
  { method: 'POST', pattern: new RegExp(`^${V4_BATCH}/read$`), handle: batchRead },
  { method: 'POST', pattern: new RegExp(`^${V4_BATCH}/archive$`), handle: batchArchive },
];
