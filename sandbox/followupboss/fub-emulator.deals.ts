import { commonFilters } from './fub-emulator.list';
import { personView } from './fub-emulator.people';
import type { FubState } from './fub-emulator.state';
import { badRequest, scalarText, type StoredRecord } from './fub-emulator.types';
import { builtIns, customView } from './fub-emulator.values';

// A deal as /v1/deals shows it: the stage names its pipeline, people by id and name (crm-apis.md B3, B6).
export function dealView(state: FubState, r: StoredRecord): Record<string, unknown> {
  const f = r.fields;
  const stage = state.stage(Number(f.stageId));
  const pipeline = stage ? state.pipelines.get(stage.pipelineId) : undefined;
  const peopleIds = (f.peopleIds as number[] | undefined) ?? [];
  return {
    id: r.id,
    created: r.created,
    updated: r.updated,
    ...builtIns(f),
    peopleIds: undefined,
    stageId: f.stageId,
    stageName: stage?.name ?? null,
    pipelineId: stage?.pipelineId ?? null,
    pipelineName: pipeline?.name ?? null,
    status: f.status ?? 'Active',
    people: peopleIds
      .map((pid) => state.records.people.get(pid))
      .filter((p) => p !== undefined)
      .map((p) => ({ id: p.id, name: personView(p, null).name })),
    users: [],
    ...customView(f, null, true),
  };
}

export function dealFields(
  state: FubState,
  body: Record<string, unknown>,
  creating: boolean,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...state.customPart('deals', body) };
  if (creating && (typeof body.name !== 'string' || body.name.trim() === ''))
    throw badRequest('name is required');
  if (creating && body.stageId === undefined) throw badRequest('stageId is required');
  if (body.name !== undefined) out.name = scalarText(body.name);
  if (body.stageId !== undefined) {
    const stageId = Number(body.stageId);
    if (!state.stage(stageId)) throw badRequest(`Invalid stageId: ${scalarText(body.stageId)}`);
    out.stageId = stageId;
  }
  if (body.price !== undefined) {
    if (body.price !== null && (typeof body.price !== 'number' || !Number.isFinite(body.price)))
      throw badRequest('price must be a number');
    out.price = body.price;
  }
  for (const key of ['description', 'projectedCloseDate'] as const)
    if (body[key] !== undefined) out[key] = body[key];
  if (body.peopleIds !== undefined) {
    if (!Array.isArray(body.peopleIds)) throw badRequest('peopleIds must be a list of person ids');
    const ids = body.peopleIds.map(Number);
    for (const pid of ids) if (!state.records.people.has(pid)) throw badRequest(`Invalid person id: ${pid}`);
    out.peopleIds = [...new Set(ids)];
  }
  return out;
}

// The deal filters FUB documents besides the common ones: status, pipelineId, stageId, personId.
export function dealMatcher(state: FubState) {
  return (r: StoredRecord, q: Record<string, string>): boolean => {
    if (!commonFilters(r, q)) return false;
    // Deleted deals show only when asked for (deals-get: `status`, `includeDeleted=1`).
    const status = scalarText(r.fields.status ?? 'Active');
    if (q.status ? !q.status.split(',').includes(status) : status === 'Deleted' && q.includeDeleted !== '1')
      return false;
    const stage = state.stage(Number(r.fields.stageId));
    if (q.pipelineId && String(stage?.pipelineId) !== q.pipelineId) return false;
    if (q.stageId && String(r.fields.stageId) !== q.stageId) return false;
    if (q.personId && !((r.fields.peopleIds as number[] | undefined) ?? []).includes(Number(q.personId)))
      return false;
    return true;
  };
}
