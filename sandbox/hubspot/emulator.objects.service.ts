import { Injectable } from '@nestjs/common';
import { createAssociations } from './emulator.create-associations';
import { notFound } from './emulator.errors';
import { listParam, objectType, record } from './emulator.inputs';
import { EmulatorState } from './emulator.state';
import type { StoredObject } from './emulator.types';
import { associationsBlock, toWire } from './emulator.wire';
import { API_SOURCE } from './emulator.write-source';

// One record at a time under /crm/v3/objects/{type}: create, page, read, update, archive.
@Injectable()
export class ObjectsService {
  constructor(private readonly state: EmulatorState) {}

  create(typeSegment: string, rawBody: unknown): Record<string, unknown> {
    const type = objectType(typeSegment);
    const body = record(rawBody, 'request body');
    const values = this.state.objects.validate(type, body.properties ?? {});
    const link = createAssociations(this.state, type, body.associations);
    const obj = this.state.objects.create(type, values, Date.now(), API_SOURCE);
    link(obj);
    return toWire(obj, obj, Object.keys(values));
  }

  page(typeSegment: string, query: URLSearchParams): Record<string, unknown> {
    const type = objectType(typeSegment);
    const limit = Math.min(Number(query.get('limit') ?? 10), 100);
    const after = query.get('after');
    // ?archived=true lists the recycle bin instead, each record with archivedAt.
    const source =
      query.get('archived') === 'true' ? this.state.objects.allArchived(type) : this.state.objects.all(type);
    const sorted = [...source.values()].sort((a, b) => Number(a.id) - Number(b.id));
    const start = after ? sorted.findIndex((o) => Number(o.id) >= Number(after)) : 0;
    const page = start < 0 ? [] : sorted.slice(start, start + limit);
    const next = start < 0 ? undefined : sorted[start + limit];
    return {
      results: page.map((o) => this.withAssociations(o, query)),
      ...(next ? { paging: { next: { after: next.id, link: `?after=${next.id}` } } } : {}),
    };
  }

  get(typeSegment: string, id: string, query: URLSearchParams): Record<string, unknown> {
    const type = objectType(typeSegment);
    if (query.get('archived') === 'true') {
      const gone = this.state.objects.allArchived(type).get(id);
      if (!gone) throw notFound(`Object not found.  objectId are usually numeric.`);
      return toWire(gone, gone, listParam(query, 'properties'), listParam(query, 'propertiesWithHistory'));
    }
    const obj = this.state.objects.require(type, id, query.get('idProperty') ?? undefined);
    return this.withAssociations(obj, query);
  }

  update(typeSegment: string, id: string, query: URLSearchParams, body: unknown): Record<string, unknown> {
    const type = objectType(typeSegment);
    const obj = this.state.objects.require(type, id, query.get('idProperty') ?? undefined);
    const values = this.state.objects.validate(type, record(body, 'request body').properties ?? {});
    this.state.objects.update(obj, values, Date.now(), API_SOURCE);
    return toWire(obj, obj, Object.keys(values));
  }

  archive(typeSegment: string, id: string): void {
    const type = objectType(typeSegment);
    const obj = this.state.objects.find(type, id);
    if (!obj) return;
    this.state.associations.forget(type, obj.id);
    this.state.objects.archive(obj, Date.now());
  }

  private withAssociations(obj: StoredObject, query: URLSearchParams): Record<string, unknown> {
    const toTypes = listParam(query, 'associations')?.map(objectType);
    const associations = associationsBlock(this.state.associations, obj, toTypes);
    return {
      ...toWire(obj, obj, listParam(query, 'properties'), listParam(query, 'propertiesWithHistory')),
      ...(associations ? { associations } : {}),
    };
  }
}
