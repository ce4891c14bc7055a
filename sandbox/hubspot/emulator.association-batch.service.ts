import { Injectable } from '@nestjs/common';
import type { AssociationStore } from './emulator.association-store';
import { defaultTypeId } from './emulator.association-store';
import {
  ASSOCIATION_PAGE,
  defaultSpec,
  labelsBetween,
  pageOf,
  requireObject,
  typeIdsFrom,
  typesOut,
} from './emulator.association-wire';
import { HubSpotHttpError, badRequest } from './emulator.errors';
import { batchInputs, objectType, record, text } from './emulator.inputs';
import { HubSpotReply } from './emulator.reply';
import { EmulatorState } from './emulator.state';
import type { ObjectType } from './emulator.types';
import { batchEnvelope } from './emulator.wire';

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

function labelsOut(store: AssociationStore, from: ObjectType, to: ObjectType): Record<string, unknown>[] {
  return store
    .labelTypes(from, to)
    .map((t) => ({ category: 'USER_DEFINED', typeId: t.typeId, label: t.label }));
}

// Links between two object types, under /crm/v4/associations/{from}/{to}: the batch calls and the
// association labels.
@Injectable()
export class AssociationBatchService {
  constructor(private readonly state: EmulatorState) {}

  // The spec gives this call no 207: one bad pair fails the whole batch with that pair's error
  // (naming the pair) and nothing is linked.
  associateDefault(fromSegment: string, toSegment: string, body: unknown): Record<string, unknown> {
    const started = Date.now();
    const from = objectType(fromSegment);
    const to = objectType(toSegment);
    const typeId = defaultTypeId(from, to);
    const pairs = batchInputs(body, 2000).map(pairOf);
    for (const [fromId, toId] of pairs) {
      try {
        requireObject(this.state, from, fromId);
        requireObject(this.state, to, toId);
      } catch (error) {
        if (!(error instanceof HubSpotHttpError)) throw error;
        throw new HubSpotHttpError(error.status, error.category, error.message, {
          context: { fromObjectId: [fromId], toObjectId: [toId] },
        });
      }
    }
    const results = pairs.map(([fromId, toId]) => {
      this.state.associations.add(from, fromId, to, toId, typeId);
      return { associationSpec: defaultSpec(from, to), from: { id: fromId }, to: { id: toId } };
    });
    return batchEnvelope(results, [], started);
  }

  create(fromSegment: string, toSegment: string, body: unknown): HubSpotReply {
    const started = Date.now();
    const from = objectType(fromSegment);
    const to = objectType(toSegment);
    const links = this.state.associations;
    const results: unknown[] = [];
    const errors: unknown[] = [];
    for (const input of batchInputs(body, 2000)) {
      const [fromId, toId] = pairOf(input);
      try {
        requireObject(this.state, from, fromId);
        requireObject(this.state, to, toId);
        for (const typeId of typeIdsFrom(input.types ?? [], from, to))
          links.add(from, fromId, to, toId, typeId);
        const typeIds = links.list(from, fromId, to).find(([id]) => id === toId)?.[1] ?? [];
        results.push(labelsBetween(links, from, fromId, to, toId, typeIds));
      } catch (error) {
        errors.push(pairError(error, fromId, toId));
      }
    }
    return new HubSpotReply(errors.length > 0 ? 207 : 201, batchEnvelope(results, errors, started));
  }

  // Ids without any association come back as errors in a 207, as HubSpot does.
  read(fromSegment: string, toSegment: string, body: unknown): HubSpotReply {
    const started = Date.now();
    const from = objectType(fromSegment);
    const to = objectType(toSegment);
    const results: unknown[] = [];
    const errors: unknown[] = [];
    for (const input of batchInputs(body, 1000)) {
      const id = String(input.id);
      const list = this.state.associations.list(from, id, to);
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
          associationTypes: typesOut(this.state.associations, typeIds),
        })),
        ...(next ? { paging: { next: { after: next } } } : {}),
      });
    }
    return new HubSpotReply(errors.length > 0 ? 207 : 200, batchEnvelope(results, errors, started));
  }

  archive(fromSegment: string, toSegment: string, body: unknown): void {
    const from = objectType(fromSegment);
    const to = objectType(toSegment);
    for (const input of batchInputs(body, 2000)) {
      const fromId = String(record(input.from, 'from').id);
      const targets = Array.isArray(input.to) ? input.to : [];
      for (const target of targets)
        this.state.associations.remove(from, fromId, to, String(record(target, 'to').id));
    }
  }

  labels(fromSegment: string, toSegment: string): Record<string, unknown> {
    const from = objectType(fromSegment);
    const to = objectType(toSegment);
    const defaults = { category: 'HUBSPOT_DEFINED', typeId: defaultTypeId(from, to), label: null };
    return { results: [defaults, ...labelsOut(this.state.associations, from, to)] };
  }

  // `{ label, name }` defines a USER_DEFINED type; the answer lists the new type ids.
  createLabel(fromSegment: string, toSegment: string, rawBody: unknown): Record<string, unknown> {
    const from = objectType(fromSegment);
    const to = objectType(toSegment);
    const body = record(rawBody, 'request body');
    if (typeof body.label !== 'string' || body.label === '') throw badRequest('label is required');
    const typeId = this.state.associations.defineLabel(from, to, body.label);
    const inverse = this.state.associations.info(typeId)!.inverse;
    return {
      results: [
        { category: 'USER_DEFINED', typeId, label: body.label },
        { category: 'USER_DEFINED', typeId: inverse, label: body.label },
      ],
    };
  }
}
