import { commonFilters, listRecords, MAX_LIMIT } from './fub-emulator.list';
import type { FieldsKind, FubState } from './fub-emulator.state';
import { badRequest, scalarText, type CustomFieldDef, type StoredRecord } from './fub-emulator.types';

export interface ApiContext {
  params: string[];
  query: URLSearchParams;
  body: unknown;
  state: FubState;
}

export interface ApiResult {
  status: number;
  body?: unknown;
}

export interface ApiRoute {
  method: string;
  pattern: RegExp;
  handle(ctx: ApiContext): ApiResult;
}

function object(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest('Invalid JSON body');
  return body as Record<string, unknown>;
}

const id = (text: string): number => {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw badRequest(`${text} is not an id`);
  return n;
};

// Custom fields appear only with fields=allFields (or named in `fields`) on people (crm-apis.md B6);
// deals show theirs always.
function customView(
  fields: Record<string, unknown>,
  wanted: string | null,
  always: boolean,
): Record<string, unknown> {
  const names = wanted?.split(',').map((s) => s.trim()) ?? [];
  const all = always || names.includes('allFields') || names.includes('allCustom');
  return Object.fromEntries(
    Object.entries(fields).filter(([k]) => /^custom[A-Z]/.test(k) && (all || names.includes(k))),
  );
}

function builtIns(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([k]) => !/^custom[A-Z]/.test(k)));
}

export function personView(r: StoredRecord, fields: string | null): Record<string, unknown> {
  const f = r.fields;
  const name = [f.firstName, f.lastName].filter((s) => typeof s === 'string' && s !== '').join(' ');
  return {
    id: r.id,
    created: r.created,
    updated: r.updated,
    createdVia: 'API',
    lastActivity: null,
    name,
    firstName: f.firstName ?? null,
    lastName: f.lastName ?? null,
    stage: f.stage ?? 'Lead',
    source: f.source ?? '<unspecified>',
    emails: f.emails ?? [],
    phones: f.phones ?? [],
    tags: f.tags ?? [],
    ...customView(f, fields, false),
  };
}

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

function personFields(
  state: FubState,
  body: Record<string, unknown>,
  creating: boolean,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...state.customPart('people', body) };
  for (const key of ['firstName', 'lastName', 'stage', 'tags', 'emails', 'phones', 'price', 'background']) {
    if (body[key] !== undefined) out[key] = body[key];
  }
  for (const key of ['emails', 'phones'] as const) {
    if (
      out[key] !== undefined &&
      (!Array.isArray(out[key]) ||
        (out[key] as unknown[]).some((e) => typeof (e as { value?: unknown })?.value !== 'string'))
    )
      throw badRequest(`${key} must be a list of { value }`);
  }
  // `source` can be set only when a person is created (crm-apis.md B2).
  if (creating && typeof body.source === 'string') out.source = body.source;
  return out;
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

function listPeople(ctx: ApiContext): ApiResult {
  const page = listRecords(ctx.state.records.people.values(), ctx.query, 'people', '-created', commonFilters);
  const fields = page.q.fields ?? null;
  return {
    status: 200,
    body: { _metadata: page.metadata, people: page.items.map((p) => personView(p, fields)) },
  };
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

function fieldsList(kind: FieldsKind, key: string) {
  return (ctx: ApiContext): ApiResult => {
    const all = [...ctx.state.customFields[kind].values()].sort((a, b) => b.id - a.id);
    const limit = Math.min(Number(ctx.query.get('limit') ?? 10) || 10, MAX_LIMIT);
    const offset = Number(ctx.query.get('offset') ?? 0) || 0;
    const items: CustomFieldDef[] = all.slice(offset, offset + limit);
    return {
      status: 200,
      body: { _metadata: { collection: key, offset, limit, total: all.length }, [key]: items },
    };
  };
}

function pipelineBody(body: Record<string, unknown>): {
  name?: string;
  stages?: { id?: number; name: string }[];
} {
  const stages = body.stages;
  if (stages !== undefined && !Array.isArray(stages)) throw badRequest('stages must be a list');
  const parsed = (stages as unknown[] | undefined)?.map((s) => {
    const stage = object(s);
    if (typeof stage.name !== 'string' || stage.name.trim() === '')
      throw badRequest('name is a required field for each stage object');
    return { ...(stage.id !== undefined ? { id: Number(stage.id) } : {}), name: stage.name };
  });
  return {
    ...(typeof body.name === 'string' ? { name: body.name } : {}),
    ...(parsed ? { stages: parsed } : {}),
  };
}

export const API_ROUTES: ApiRoute[] = [
  { method: 'GET', pattern: /^\/v1\/people$/, handle: listPeople },
  {
    method: 'POST',
    pattern: /^\/v1\/people$/,
    handle: (ctx) => {
      const body = object(ctx.body);
      const fields = personFields(ctx.state, body, true);
      // ?deduplicate=true answers 200 with the person already holding the email, unchanged.
      if (ctx.query.get('deduplicate') === 'true') {
        const emails = ((fields.emails as { value: string }[] | undefined) ?? []).map((e) =>
          e.value.toLowerCase(),
        );
        const match = [...ctx.state.records.people.values()].find((p) =>
          ((p.fields.emails as { value: string }[] | undefined) ?? []).some((e) =>
            emails.includes(e.value.toLowerCase()),
          ),
        );
        if (match) return { status: 200, body: personView(match, 'allFields') };
      }
      return { status: 201, body: personView(ctx.state.create('people', fields), 'allFields') };
    },
  },
  {
    method: 'GET',
    pattern: /^\/v1\/people\/([^/]+)$/,
    handle: (ctx) => ({
      status: 200,
      body: personView(ctx.state.get('people', id(ctx.params[0])), ctx.query.get('fields')),
    }),
  },
  {
    method: 'PUT',
    pattern: /^\/v1\/people\/([^/]+)$/,
    handle: (ctx) => {
      const pid = id(ctx.params[0]);
      ctx.state.get('people', pid);
      const fields = personFields(ctx.state, object(ctx.body), false);
      return { status: 200, body: personView(ctx.state.update('people', pid, fields), 'allFields') };
    },
  },
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
  {
    method: 'POST',
    pattern: /^\/v1\/notes$/,
    handle: (ctx) => {
      const body = object(ctx.body);
      const personId = Number(body.personId);
      if (!body.personId) throw badRequest('personId is required');
      ctx.state.get('people', personId);
      const note = ctx.state.create('notes', {
        personId,
        subject: body.subject ?? '',
        body: scalarText(body.body),
        isHtml: body.isHtml === true,
      });
      return {
        status: 201,
        body: { id: note.id, created: note.created, updated: note.updated, ...note.fields },
      };
    },
  },
  {
    method: 'GET',
    pattern: /^\/v1\/notes\/([^/]+)$/,
    handle: (ctx) => {
      const note = ctx.state.get('notes', id(ctx.params[0]));
      return {
        status: 200,
        body: { id: note.id, created: note.created, updated: note.updated, ...note.fields },
      };
    },
  },
  { method: 'GET', pattern: /^\/v1\/dealCustomFields$/, handle: fieldsList('deals', 'dealCustomfields') },
  { method: 'GET', pattern: /^\/v1\/customFields$/, handle: fieldsList('people', 'customfields') },
  {
    method: 'POST',
    pattern: /^\/v1\/dealCustomFields$/,
    handle: (ctx) => ({ status: 201, body: ctx.state.createField('deals', object(ctx.body)) }),
  },
  {
    method: 'POST',
    pattern: /^\/v1\/customFields$/,
    handle: (ctx) => ({ status: 201, body: ctx.state.createField('people', object(ctx.body)) }),
  },
  {
    method: 'GET',
    pattern: /^\/v1\/pipelines$/,
    handle: (ctx) => {
      const all = [...ctx.state.pipelines.values()];
      return {
        status: 200,
        body: {
          _metadata: { collection: 'pipelines', offset: 0, limit: all.length, total: all.length },
          pipelines: all,
        },
      };
    },
  },
  {
    method: 'POST',
    pattern: /^\/v1\/pipelines$/,
    handle: (ctx) => {
      const input = pipelineBody(object(ctx.body));
      if (!input.name) throw badRequest('name is required');
      return {
        status: 201,
        body: ctx.state.createPipeline({ name: input.name, stages: (input.stages ?? []).map((s) => s.name) }),
      };
    },
  },
  {
    method: 'PUT',
    pattern: /^\/v1\/pipelines\/([^/]+)$/,
    handle: (ctx) => ({
      status: 200,
      body: ctx.state.updatePipeline(id(ctx.params[0]), pipelineBody(object(ctx.body))),
    }),
  },
];
