import { Injectable } from '@nestjs/common';
import { badRequest, notFound } from './emulator.errors';
import { objectType, record } from './emulator.inputs';
import { EmulatorState } from './emulator.state';
import { OBJECT_TYPES, type ObjectType } from './emulator.types';
import { toWire } from './emulator.wire';
import { IMPORT_SOURCE } from './emulator.write-source';

// The portal's records as tests set them up and look at them, without limits or scopes.
@Injectable()
export class ControlObjectsService {
  constructor(private readonly state: EmulatorState) {}

  // Creates many objects in one call: `{ type, count, properties, indexed }`. "{i}" in a property
  // value becomes the object's index; `modifiedAt` pins every record to one time.
  seed(rawBody: unknown): Record<string, unknown> {
    const now = Date.now();
    const body = record(rawBody, 'seed');
    const type = objectType(String(body.type));
    const count = Number(body.count);
    if (!Number.isInteger(count) || count < 1 || count > 200_000) throw badRequest('count must be 1..200000');
    const template = record(body.properties ?? {}, 'properties');
    const at = typeof body.modifiedAt === 'string' ? Date.parse(body.modifiedAt) : now;
    const ids: string[] = [];
    const start = Number(body.startIndex ?? 0);
    // `visibleAfterMs`: search shows these records only that long from now, though their timestamp
    // is `modifiedAt` (HubSpot's index lag varies, so a record can show after later-stamped ones).
    const indexAt = typeof body.visibleAfterMs === 'number' ? now + body.visibleAfterMs : undefined;
    for (let i = start; i < start + count; i++) {
      const props = Object.fromEntries(
        Object.entries(template).map(([k, v]) => [k, String(v as string).replace(/\{i\}/g, String(i))]),
      );
      const values = this.state.objects.validate(type, props);
      const obj = this.state.objects.create(type, values, at, IMPORT_SOURCE);
      if (indexAt !== undefined) obj.indexAt = indexAt;
      ids.push(obj.id);
    }
    return { created: ids.length, firstId: ids[0], lastId: ids[ids.length - 1] };
  }

  list(typeSegment: string, query: URLSearchParams): Record<string, unknown> {
    const type = objectType(typeSegment);
    const limit = Number(query.get('limit') ?? 100);
    const offset = Number(query.get('offset') ?? 0);
    const all = [...this.state.objects.all(type).values()];
    const results = all.slice(offset, offset + limit).map((o) => ({
      ...toWire(o, o, Object.keys(o.properties)),
      associations: this.associationsOf(type, o.id),
    }));
    return { total: all.length, results };
  }

  get(typeSegment: string, id: string): Record<string, unknown> {
    const type = objectType(typeSegment);
    const obj = this.state.objects.get(type, id);
    if (!obj) throw notFound(`${type} ${id} does not exist`);
    return {
      ...toWire(obj, obj, Object.keys(obj.properties)),
      associations: this.associationsOf(type, obj.id),
    };
  }

  private associationsOf(type: ObjectType, id: string): Record<string, string[]> {
    return Object.fromEntries(
      OBJECT_TYPES.map((to) => [to, this.state.associations.list(type, id, to).map(([toId]) => toId)]),
    );
  }
}
