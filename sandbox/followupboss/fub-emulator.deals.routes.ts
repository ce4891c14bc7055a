import { commonFilters, listRecords } from './fub-emulator.list';
import {
  builtIns,
  customView,
  id,
  object,
  type ApiContext,
  type ApiResult,
  type ApiRoute,
} from './fub-emulator.route';
import { personView } from './fub-emulator.people.routes';
import type { FubState } from './fub-emulator.state';
import { badRequest, scalarText, type StoredRecord } from './fub-emulator.types';

function dealView(state: FubState, r: StoredRecord): Record<string, unknown> {
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
    status: 'Active',
    people: peopleIds
      .map((pid) => state.records.people.get(pid))
      .filter((p) => p !== undefined)
      .map((p) => ({ id: p.id, name: personView(p, null).name })),
    users: [],
    ...customView(f, null, true),
  };
}

function dealFields(
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

function listDeals(ctx: ApiContext): ApiResult {
  const page = listRecords(ctx.state.records.deals.values(), ctx.query, 'deals', '-id', (r, q) => {
    if (!commonFilters(r, q)) return false;
    const stage = ctx.state.stage(Number(r.fields.stageId));
    if (q.pipelineId && String(stage?.pipelineId) !== q.pipelineId) return false;
    if (q.stageId && String(r.fields.stageId) !== q.stageId) return false;
    if (q.personId && !((r.fields.peopleIds as number[] | undefined) ?? []).includes(Number(q.personId)))
      return false;
    return true;
  });
  return {
    status: 200,
    body: { _metadata: page.metadata, deals: page.items.map((d) => dealView(ctx.state, d)) },
  };
}

// /v1/deals (crm-apis.md B3, B6).
export const DEAL_ROUTES: ApiRoute[] = [
  { method: 'GET', pattern: /^\/v1\/deals$/, handle: listDeals },
  {
    method: 'POST',
    pattern: /^\/v1\/deals$/,
    handle: (ctx) => {
      const fields = dealFields(ctx.state, object(ctx.body), true);
      return { status: 201, body: dealView(ctx.state, ctx.state.create('deals', fields)) };
    },
  },
  {
    method: 'GET',
    pattern: /^\/v1\/deals\/([^/]+)$/,
    handle: (ctx) => ({ status: 200, body: dealView(ctx.state, ctx.state.get('deals', id(ctx.params[0]))) }),
  },
  {
    method: 'PUT',
    pattern: /^\/v1\/deals\/([^/]+)$/,
    handle: (ctx) => {
      const did = id(ctx.params[0]);
      ctx.state.get('deals', did);
      const fields = dealFields(ctx.state, object(ctx.body), false);
      return { status: 200, body: dealView(ctx.state, ctx.state.update('deals', did, fields)) };
    },
  },
];
