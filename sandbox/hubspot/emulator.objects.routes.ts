import { HubSpotHttpError, badRequest, notFound } from './emulator.errors';
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
      const info = ctx.state.associations.info(typeId);
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
  // ?archived=true lists the recycle bin instead, each record with archivedAt.
  const source =
    ctx.query.get('archived') === 'true' ? ctx.state.objects.allArchived(type) : ctx.state.objects.all(type);
  const sorted = [...source.values()].sort((a, b) => Number(a.id) - Number(b.id));
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
  if (ctx.query.get('archived') === 'true') {
    const gone = ctx.state.objects.allArchived(type).get(ctx.params[1]);
    if (!gone) throw notFound(`Object not found.  objectId are usually numeric.`);
    return { status: 200, body: toWire(gone, gone, listParam(ctx.query, 'properties')) };
  }
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
    ctx.state.objects.archive(obj, ctx.now);
  }
  return { status: 204 };
}

type Prepared = () => Record<string, unknown>;

// How a batch answers an invalid input. HubSpot promises per-input errors (207) only for batch
// create, and only when every input carries an objectWriteTraceId ("multi-status error handling");
// batch update and upsert, and a create without trace ids, fail whole with one 4xx and write nothing.
type BatchMode = 'multi-status-with-trace-ids' | 'whole';

function batchWrite(
  ctx: RouteContext,
  okStatus: number,
  mode: BatchMode,
  prepare: (input: Record<string, unknown>) => Prepared,
  before?: (inputs: Record<string, unknown>[]) => void,
): RouteResult {
  const started = Date.now();
  const inputs = batchInputs(ctx.body);
  before?.(inputs);
  const multiStatus =
    mode === 'multi-status-with-trace-ids' &&
    inputs.length > 0 &&
    inputs.every((i) => typeof i.objectWriteTraceId === 'string');
  const results: unknown[] = [];
  const errors: unknown[] = [];
  const fail = (input: Record<string, unknown>, index: number, error: unknown): void => {
    if (!(error instanceof HubSpotHttpError)) throw error;
    if (!multiStatus) throw namingInput(error, input, index);
    const body = error.body();
    delete body.correlationId;
    errors.push({
      ...body,
      context: { objectWriteTraceId: [String(input.objectWriteTraceId)] },
      links: {},
    });
  };
  const prepared: [Record<string, unknown>, Prepared, number][] = [];
  inputs.forEach((input, index) => {
    try {
      prepared.push([input, prepare(input), index]);
    } catch (error) {
      fail(input, index, error);
    }
  });
  for (const [input, apply, index] of prepared) {
    try {
      const result = apply();
      results.push(multiStatus ? { ...result, objectWriteTraceId: input.objectWriteTraceId } : result);
    } catch (error) {
      fail(input, index, error);
    }
  }
  return { status: errors.length > 0 ? 207 : okStatus, body: batchEnvelope(results, errors, started) };
}

// A whole-batch failure keeps HubSpot's category and message and names the input it is about
// (`context.ids`, `context.inputIndex`); nothing of the batch is written.
function namingInput(
  error: HubSpotHttpError,
  input: Record<string, unknown>,
  index: number,
): HubSpotHttpError {
  const id = input.id === undefined ? undefined : text(input.id);
  return new HubSpotHttpError(error.status, error.category, error.message, {
    ...error.extra,
    context: { ...(id !== undefined ? { ids: [id] } : {}), inputIndex: [String(index)] },
  });
}

function batchCreate(ctx: RouteContext): RouteResult {
  const type = objectType(ctx.params[0]);
  return batchWrite(ctx, 201, 'multi-status-with-trace-ids', (input) => {
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
  return batchWrite(ctx, 200, 'whole', (input) => {
    const idProperty = typeof input.idProperty === 'string' ? input.idProperty : undefined;
    const obj = ctx.state.objects.find(type, String(input.id), idProperty);
    if (!obj) throw notFound(`Object ${String(input.id)} of type ${type} was not found.`);
    const values = ctx.state.objects.validate(type, input.properties ?? {});
    ctx.state.objects.assertWritable(type, values, obj);
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
    'whole',
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
      const found = ctx.state.objects.find(type, id, idProperty);
      ctx.state.objects.assertWritable(type, found ? values : { ...values, [idProperty]: id }, found);
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
  const archived = ctx.query.get('archived') === 'true';
  for (const input of inputs) {
    const obj = archived
      ? ctx.state.objects.allArchived(type).get(String(input.id))
      : ctx.state.objects.find(type, String(input.id), idProperty);
    if (obj) results.push(toWire(obj, obj, properties));
    else missing.push(String(input.id));
  }
  const errors: Record<string, unknown>[] =
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
  // HubSpot answers a read of only unknown ids with 404, of some unknown ids with 207.
  if (inputs.length > 0 && results.length === 0) {
    throw new HubSpotHttpError(404, 'OBJECT_NOT_FOUND', String(errors[0].message), {
      context: { ids: missing },
    });
  }
  return { status: missing.length > 0 ? 207 : 200, body: batchEnvelope(results, errors, started) };
}

function batchArchive(ctx: RouteContext): RouteResult {
  const type = objectType(ctx.params[0]);
  for (const input of batchInputs(ctx.body)) {
    const obj = ctx.state.objects.find(type, String(input.id));
    if (!obj) continue;
    ctx.state.associations.forget(type, obj.id);
    ctx.state.objects.archive(obj, ctx.now);
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
