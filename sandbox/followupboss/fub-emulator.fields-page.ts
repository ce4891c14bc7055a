import { MAX_LIMIT } from './fub-emulator.list';
import type { FieldsKind, FubState } from './fub-emulator.state';
import type { CustomFieldDef } from './fub-emulator.types';

// /v1/customFields and /v1/dealCustomFields pages: newest first, `limit` and `offset`.
export function fieldsPage(
  state: FubState,
  kind: FieldsKind,
  key: string,
  query: URLSearchParams,
): Record<string, unknown> {
  const all = [...state.customFields[kind].values()].sort((a, b) => b.id - a.id);
  const limit = Math.min(Number(query.get('limit') ?? 10) || 10, MAX_LIMIT);
  const offset = Number(query.get('offset') ?? 0) || 0;
  const items: CustomFieldDef[] = all.slice(offset, offset + limit);
  return { _metadata: { collection: key, offset, limit, total: all.length }, [key]: items };
}
