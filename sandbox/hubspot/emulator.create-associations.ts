import { badRequest, notFound } from './emulator.errors';
import { record } from './emulator.inputs';
import type { EmulatorState } from './emulator.state';
import type { ObjectType, StoredObject } from './emulator.types';

// Create-time associations: `[{ to: { id }, types: [{ associationCategory, associationTypeId }] }]`.
// Checked before the record is written; the returned function links the created record.
export function createAssociations(
  state: EmulatorState,
  type: ObjectType,
  raw: unknown,
): (obj: StoredObject) => void {
  if (raw === undefined) return () => undefined;
  if (!Array.isArray(raw)) throw badRequest('associations must be an array');
  const links = raw.map((entry, i) => {
    const spec = record(entry, `associations[${i}]`);
    const toId = String(record(spec.to, `associations[${i}].to`).id);
    const types = Array.isArray(spec.types)
      ? spec.types.map((t) => Number(record(t, 'type').associationTypeId))
      : [];
    return types.map((typeId) => {
      const info = state.associations.info(typeId);
      if (!info || info.from !== type) throw badRequest(`association type ${typeId} cannot start at ${type}`);
      if (!state.objects.get(info.to, toId)) throw notFound(`${info.to} ${toId} does not exist`);
      return { to: info.to, toId, typeId };
    });
  });
  return (obj) => {
    for (const link of links.flat()) state.associations.add(type, obj.id, link.to, link.toId, link.typeId);
  };
}
