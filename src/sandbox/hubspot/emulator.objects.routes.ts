import { HubSpotHttpError, badRequest, notFound } from './emulator.errors';
import { typeInfo } from './emulator.association-store';
import type { Route, RouteContext, RouteResult } from './emulator.route';
import { batchEnvelope, batchInputs, listParam, objectType, record, text } from './emulator.route';
import type { ObjectType, StoredObject } from './emulator.types';
import { associationsBlock, toWire } from './emulator.wire';

const OBJ = '/crm/v3/objects/([^/]+)';

function wireWithAssociations(ctx: RouteContext, obj: StoredObject): Record<string, unknown> {
  const toTypes = listParam(ctx.query, 'associations')?.map(objectType);
  const associations = associationsBlock(ctx.state.associations, obj, toTypes);
  return {
    ...toWire(obj, obj, listParam(ctx.query, 'properties')),
    ...(associations ? { associations } : {}),
  };
}

// Create-time associations: `[{ to: { id }, types: [{ associationCategory, associationTypeId }] }]`.
function createAssociations(ctx: RouteContext, type: ObjectType, raw: unknown): (obj: StoredObject) => void {
  if (raw === undefined) return () => undefined;
  if (!Array.isArray(raw)) throw badRequest('associations must be an array');
  const links = raw.map((entry, i) => {
    const spec = record(entry, `associations[${i}]`);
    const toId = String(record(spec.to, `associations[${i}].to`).id);
    const types = Array.isArray(spec.types)
      ? spec.types.map((t) => Number(record(t, 'type').associationTypeId))
      : [];
    return types.map((typeId) => {
      const info = typeInfo(typeId);
      if (!info || info.from !== type) throw badRequest(`association type ${typeId} cannot start at ${type}`);
      if (!ctx.state.objects.get(info.to, toId)) throw notFound(`${info.to} ${toId} does not exist`);
      return { to: info.to, toId, typeId };
    });
  });
  return (obj) => {
    for (const link of links.flat())
      ctx.state.associations.add(type, obj.id, link.to, link.toId, link.typeId);
  };
}

function create(ctx: RouteContext): RouteResult {
  const type = objectType(ctx.params[0]);
  const body = record(ctx.body, 'request body');
  const values = ctx.state.objects.validate(type, body.properties ?? {});
  const link = createAssociations(ctx, type, body.associations);
  const obj = ctx.state.objects.create(type, values, ctx.now);
  link(obj);
  return { status: 201, body: toWire(obj, obj, Object.keys(values)) };
}

function getPage(ctx: RouteContext): RouteResult {
  const type = objectType(ctx.params[0]);
  const limit = Math.min(Number(ctx.query.get('limit') ?? 10), 100);
  const after = ctx.query.get('after');
  const sorted = [...ctx.state.objects.all(type).values()].sort((a, b) => Number(a.id) - Number(b.id));
  const start = after ? sorted.findIndex((o) => Number(o.id) >= Number(after)) : 0;
  const page = start < 0 ? [] : sorted.slice(start, start + limit);
  const next = start < 0 ? undefined : sorted[start + limit];
  return {
    status: 200,
    body: {
      results: page.map((o) => wireWithAssociations(ctx, o)),
      ...(next ? { paging: { next: { after: next.id, link: `?after=${next.id}` } } } : {}),
    },
  };
}

function getById(ctx: RouteContext): RouteResult {
  const type = objectType(ctx.params[0]);
  const obj = ctx.state.objects.require(type, ctx.params[1], ctx.query.get('idProperty') ?? undefined);
  return { status: 200, body: wireWithAssociations(ctx, obj) };
}

function update(ctx: RouteContext): RouteResult {
  const type = objectType(ctx.params[0]);
  const obj = ctx.state.objects.require(type, ctx.params[1], ctx.query.get('idProperty') ?? undefined);
  const values = ctx.state.objects.validate(type, record(ctx.body, 'request body').properties ?? {});
  ctx.state.objects.update(obj, values, ctx.now);
  return { status: 200, body: toWire(obj, obj, Object.keys(values)) };
}

function archive(ctx: RouteContext): RouteResult {
  const type = objectType(ctx.params[0]);
  const obj = ctx.state.objects.find(type, ctx.params[1]);
  if (obj) {
    ctx.state.associations.forget(type, obj.id);
    ctx.state.objects.archive(obj);
  }
  return { status: 204 };
}

type Prepared = () => Record<string, unknown>;

// Batch writes validate every input first. With an objectWriteTraceId on every input HubSpot
// answers 207 with per-input errors; without, one bad input fails the whole batch and nothing is written.
function batchWrite(
  ctx: RouteContext,
  okStatus: number,
  prepare: (input: Record<string, unknown>) => Prepared,
  before?: (inputs: Record<string, unknown>[]) => void,
): RouteResult {
  const started = Date.now();
  const inputs = batchInputs(ctx.body);
  before?.(inputs);
  const multiStatus = inputs.length > 0 && inputs.every((i) => typeof i.objectWriteTraceId === 'string');
  const results: unknown[] = [];
  const errors: unknown[] = [];
  const fail = (input: Record<string, unknown>, error: unknown): void => {
    if (!(error instanceof HubSpotHttpError)) throw error;
    if (!multiStatus) throw error;
    const body = error.body();
    delete body.correlationId;
    errors.push({ ...body, context: { objectWriteTraceId: [String(input.objectWriteTraceId)] } });
  };
  const prepared: [Record<string, unknown>, Prepared][] = [];
  for (const input of inputs) {
    try {
      prepared.push([input, prepare(input)]);
    } catch (error) {
      fail(input, error);
    }
  }
  for (const [input, apply] of prepared) {
    try {
      const result = apply();
      results.push(multiStatus ? { ...result, objectWriteTraceId: input.objectWriteTraceId } : result);
    } catch (error) {
      fail(input, error);
    }
  }
  return { status: errors.length > 0 ? 207 : okStatus, body: batchEnvelope(results, errors, started) };
}

function batchCreate(ctx: RouteContext): RouteResult {
  const type = objectType(ctx.params[0]);
  return batchWrite(ctx, 201, (input) => {
    const values = ctx.state.objects.validate(type, input.properties ?? {});
    const link = createAssociations(ctx, type, input.associations);
    return () => {
      const obj = ctx.state.objects.create(type, values, ctx.now);
      link(obj);
      return toWire(obj, obj, Object.keys(values));
    };
  });
}

function batchUpdate(ctx: RouteContext): RouteResult {
  const type = objectType(ctx.params[0]);
  return batchWrite(ctx, 200, (input) => {
    const idProperty = typeof input.idProperty === 'string' ? input.idProperty : undefined;
    const obj = ctx.state.objects.find(type, String(input.id), idProperty);
    if (!obj) throw notFound(`Object ${String(input.id)} of type ${type} was not found.`);
    const values = ctx.state.objects.validate(type, input.properties ?? {});
    return () => {
      ctx.state.objects.update(obj, values, ctx.now);
      return toWire(obj, obj, Object.keys(values));
    };
  });
}

function batchUpsert(ctx: RouteContext): RouteResult {
  const type = objectType(ctx.params[0]);
  const checkIds = (inputs: Record<string, unknown>[]): void => {
    const seen = new Set<string>();
    for (const input of inputs) {
      const key = `${String(input.idProperty)}=${String(input.id)}`;
      if (seen.has(key)) throw badRequest(`Duplicate IDs found in batch input: ${String(input.id)}`);
      seen.add(key);
    }
  };
  return batchWrite(
    ctx,
    200,
    (input) => {
      const idProperty = text(input.idProperty);
      const def = ctx.state.schema.property(type, idProperty);
      if (!def || !(def.hasUniqueValue || (type === 'contacts' && idProperty === 'email'))) {
        throw badRequest(`idProperty "${idProperty}" is not a unique-value property of ${type}`);
      }
      if (text(input.id) === '') {
        throw badRequest(`id (the value of ${idProperty}) is required for upsert`);
      }
      const id = text(input.id);
      const values = ctx.state.objects.validate(type, input.properties ?? {});
      return () => {
        const existing = ctx.state.objects.find(type, id, idProperty);
        const requested = [...Object.keys(values), idProperty];
        if (existing) {
          ctx.state.objects.update(existing, values, ctx.now);
          return { ...toWire(existing, existing, requested), new: false };
        }
        const obj = ctx.state.objects.create(type, { ...values, [idProperty]: id }, ctx.now);
        return { ...toWire(obj, obj, requested), new: true };
      };
    },
    checkIds,
  );
}

function batchRead(ctx: RouteContext): RouteResult {
  const started = Date.now();
  const type = objectType(ctx.params[0]);
  const body = record(ctx.body, 'request body');
  const inputs = batchInputs(body);
  const idProperty = typeof body.idProperty === 'string' ? body.idProperty : undefined;
  const properties = Array.isArray(body.properties) ? body.properties.map(String) : undefined;
  const results: unknown[] = [];
  const missing: string[] = [];
  for (const input of inputs) {
    const obj = ctx.state.objects.find(type, String(input.id), idProperty);
    if (obj) results.push(toWire(obj, obj, properties));
    else missing.push(String(input.id));
  }
  const errors =
    missing.length === 0
      ? []
      : [
          {
            status: 'error',
            category: 'OBJECT_NOT_FOUND',
            message: `Could not get some ${type} objects, they may be deleted or not exist. Check that ids are valid.`,
            context: { ids: missing },
          },
        ];
  return { status: missing.length > 0 ? 207 : 200, body: batchEnvelope(results, errors, started) };
}

function batchArchive(ctx: RouteContext): RouteResult {
  const type = objectType(ctx.params[0]);
  for (const input of batchInputs(ctx.body)) {
    const obj = ctx.state.objects.find(type, String(input.id));
    if (!obj) continue;
    ctx.state.associations.forget(type, obj.id);
    ctx.state.objects.archive(obj);
  }
  return { status: 204 };
}

export const OBJECT_ROUTES: Route[] = [
  { method: 'POST', pattern: new RegExp(`^${OBJ}/batch/create$`), handle: batchCreate },
  { method: 'POST', pattern: new RegExp(`^${OBJ}/batch/read$`), handle: batchRead },
  { method: 'POST', pattern: new RegExp(`^${OBJ}/batch/update$`), handle: batchUpdate },
  { method: 'POST', pattern: new RegExp(`^${OBJ}/batch/upsert$`), handle: batchUpsert },
  { method: 'POST', pattern: new RegExp(`^${OBJ}/batch/archive$`), handle: batchArchive },
  { method: 'POST', pattern: new RegExp(`^${OBJ}$`), handle: create },
  { method: 'GET', pattern: new RegExp(`^${OBJ}$`), handle: getPage },
  { method: 'GET', pattern: new RegExp(`^${OBJ}/([^/]+)$`), handle: getById },
  { method: 'PATCH', pattern: new RegExp(`^${OBJ}/([^/]+)$`), handle: update },
  { method: 'DELETE', pattern: new RegExp(`^${OBJ}/([^/]+)$`), handle: archive },
];
