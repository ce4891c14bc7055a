import { Injectable } from '@nestjs/common';
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
import { objectType } from './emulator.inputs';
import { EmulatorState } from './emulator.state';
import { batchEnvelope } from './emulator.wire';

// The links of one record, under /crm/v4/objects/{from}/{id}/associations.
@Injectable()
export class AssociationsService {
  constructor(private readonly state: EmulatorState) {}

  createDefault(
    fromSegment: string,
    fromId: string,
    toSegment: string,
    toId: string,
  ): Record<string, unknown> {
    const started = Date.now();
    const from = objectType(fromSegment);
    const to = objectType(toSegment);
    requireObject(this.state, from, fromId);
    requireObject(this.state, to, toId);
    this.state.associations.add(from, fromId, to, toId, defaultTypeId(from, to));
    const results = [
      { associationSpec: defaultSpec(from, to), from: { id: fromId }, to: { id: toId } },
      { associationSpec: defaultSpec(to, from), from: { id: toId }, to: { id: fromId } },
    ];
    return batchEnvelope(results, [], started);
  }

  createLabelled(
    fromSegment: string,
    fromId: string,
    toSegment: string,
    toId: string,
    body: unknown,
  ): Record<string, unknown> {
    const from = objectType(fromSegment);
    const to = objectType(toSegment);
    requireObject(this.state, from, fromId);
    requireObject(this.state, to, toId);
    const typeIds = typeIdsFrom(body, from, to);
    for (const typeId of typeIds) this.state.associations.add(from, fromId, to, toId, typeId);
    return labelsBetween(this.state.associations, from, fromId, to, toId, typeIds);
  }

  page(
    fromSegment: string,
    fromId: string,
    toSegment: string,
    query: URLSearchParams,
  ): Record<string, unknown> {
    const from = objectType(fromSegment);
    requireObject(this.state, from, fromId);
    const list = this.state.associations.list(from, fromId, objectType(toSegment));
    const limit = Math.min(
      Number(query.get('limit') ?? ASSOCIATION_PAGE) || ASSOCIATION_PAGE,
      ASSOCIATION_PAGE,
    );
    const { page, next } = pageOf(list, query.get('after') ?? undefined, limit);
    return {
      results: page.map(([toId, typeIds]) => ({
        toObjectId: toId,
        associationTypes: typesOut(this.state.associations, typeIds),
      })),
      ...(next ? { paging: { next: { after: next, link: `?after=${next}` } } } : {}),
    };
  }

  archivePair(fromSegment: string, fromId: string, toSegment: string, toId: string): void {
    this.state.associations.remove(objectType(fromSegment), fromId, objectType(toSegment), toId);
  }
}
