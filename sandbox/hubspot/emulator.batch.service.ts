import { Injectable } from '@nestjs/common';
import { createAssociations } from './emulator.create-associations';
import { HubSpotHttpError, badRequest, notFound } from './emulator.errors';
import { batchInputs, objectType, record, text } from './emulator.inputs';
import { HubSpotReply } from './emulator.reply';
import { EmulatorState } from './emulator.state';
import { batchEnvelope, toWire } from './emulator.wire';
import { API_SOURCE } from './emulator.write-source';

type Prepared = () => Record<string, unknown>;

// A batch read that asks for property histories takes at most 50 inputs. HubSpot's 400, as
// integrators quote it (activepieces/activepieces#9359, PipedreamHQ/pipedream#10988).
const MAX_HISTORY_INPUTS = 50;
const TOO_MANY_HISTORY_INPUTS = `The maximum number of inputs supported in a batch request for property histories is ${MAX_HISTORY_INPUTS}. Please reduce the number of items and try again`;

// How a batch answers an invalid input. HubSpot promises per-input errors (207) only for batch
// create, and only when every input carries an objectWriteTraceId ("multi-status error handling");
// batch update and upsert, and a create without trace ids, fail whole with one 4xx and write nothing.
type BatchMode = 'multi-status-with-trace-ids' | 'whole';

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

function batchWrite(
  body: unknown,
  okStatus: number,
  mode: BatchMode,
  prepare: (input: Record<string, unknown>) => Prepared,
  before?: (inputs: Record<string, unknown>[]) => void,
): HubSpotReply {
  const started = Date.now();
  const inputs = batchInputs(body);
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
    const errorBody = error.body();
    delete errorBody.correlationId;
    errors.push({
      ...errorBody,
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
  return new HubSpotReply(errors.length > 0 ? 207 : okStatus, batchEnvelope(results, errors, started));
}

function checkUniqueIds(inputs: Record<string, unknown>[]): void {
  const seen = new Set<string>();
  for (const input of inputs) {
    const key = `${String(input.idProperty)}=${String(input.id)}`;
    if (seen.has(key)) throw badRequest(`Duplicate IDs found in batch input: ${String(input.id)}`);
    seen.add(key);
  }
}

// The batch calls under /crm/v3/objects/{type}/batch.
@Injectable()
export class BatchService {
  constructor(private readonly state: EmulatorState) {}

  create(typeSegment: string, body: unknown): HubSpotReply {
    const type = objectType(typeSegment);
    const now = Date.now();
    return batchWrite(body, 201, 'multi-status-with-trace-ids', (input) => {
      const values = this.state.objects.validate(type, input.properties ?? {});
      this.state.objects.assertCreatable(type, values);
      const link = createAssociations(this.state, type, input.associations);
      return () => {
        const obj = this.state.objects.create(type, values, now, API_SOURCE);
        link(obj);
        return toWire(obj, obj, Object.keys(values));
      };
    });
  }

  update(typeSegment: string, body: unknown): HubSpotReply {
    const type = objectType(typeSegment);
    const now = Date.now();
    return batchWrite(body, 200, 'whole', (input) => {
      const idProperty = typeof input.idProperty === 'string' ? input.idProperty : undefined;
      const obj = this.state.objects.find(type, String(input.id), idProperty);
      if (!obj) throw notFound(`Object ${String(input.id)} of type ${type} was not found.`);
      const values = this.state.objects.validate(type, input.properties ?? {});
      this.state.objects.assertWritable(type, values, obj);
      return () => {
        this.state.objects.update(obj, values, now, API_SOURCE);
        return toWire(obj, obj, Object.keys(values));
      };
    });
  }

  upsert(typeSegment: string, body: unknown): HubSpotReply {
    const type = objectType(typeSegment);
    const now = Date.now();
    const { objects, schema } = this.state;
    return batchWrite(
      body,
      200,
      'whole',
      (input) => {
        const idProperty = text(input.idProperty);
        const def = schema.property(type, idProperty);
        if (!def || !(def.hasUniqueValue || (type === 'contacts' && idProperty === 'email'))) {
          throw badRequest(`idProperty "${idProperty}" is not a unique-value property of ${type}`);
        }
        if (text(input.id) === '') {
          throw badRequest(`id (the value of ${idProperty}) is required for upsert`);
        }
        const id = text(input.id);
        const values = objects.validate(type, input.properties ?? {});
        const found = objects.find(type, id, idProperty);
        objects.assertWritable(type, found ? values : { ...values, [idProperty]: id }, found);
        if (!found) objects.assertCreatable(type, { ...values, [idProperty]: id });
        return () => {
          const existing = objects.find(type, id, idProperty);
          const requested = [...Object.keys(values), idProperty];
          if (existing) {
            objects.update(existing, values, now, API_SOURCE);
            return { ...toWire(existing, existing, requested), new: false };
          }
          const obj = objects.create(type, { ...values, [idProperty]: id }, now, API_SOURCE);
          return { ...toWire(obj, obj, requested), new: true };
        };
      },
      checkUniqueIds,
    );
  }

  read(typeSegment: string, query: URLSearchParams, rawBody: unknown): HubSpotReply {
    const started = Date.now();
    const type = objectType(typeSegment);
    const body = record(rawBody, 'request body');
    const inputs = batchInputs(body);
    const idProperty = typeof body.idProperty === 'string' ? body.idProperty : undefined;
    const properties = Array.isArray(body.properties) ? body.properties.map(String) : undefined;
    // The SDK always sends propertiesWithHistory, [] when none is asked.
    const withHistory = Array.isArray(body.propertiesWithHistory)
      ? body.propertiesWithHistory.map(String).filter((name) => name !== '')
      : [];
    if (withHistory.length > 0 && inputs.length > MAX_HISTORY_INPUTS)
      throw badRequest(TOO_MANY_HISTORY_INPUTS);
    const results: unknown[] = [];
    const missing: string[] = [];
    const archived = query.get('archived') === 'true';
    for (const input of inputs) {
      const obj = archived
        ? this.state.objects.allArchived(type).get(String(input.id))
        : this.state.objects.find(type, String(input.id), idProperty);
      if (obj) results.push(toWire(obj, obj, properties, withHistory));
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
    return new HubSpotReply(missing.length > 0 ? 207 : 200, batchEnvelope(results, errors, started));
  }

  archive(typeSegment: string, body: unknown): void {
    const type = objectType(typeSegment);
    const now = Date.now();
    for (const input of batchInputs(body)) {
      const obj = this.state.objects.find(type, String(input.id));
      if (!obj) continue;
      this.state.associations.forget(type, obj.id);
      this.state.objects.archive(obj, now);
    }
  }
}
