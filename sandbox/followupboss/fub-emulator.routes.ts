import { MAX_LIMIT } from './fub-emulator.list';
import { DEAL_ROUTES } from './fub-emulator.deals.routes';
import { PEOPLE_ROUTES } from './fub-emulator.people.routes';
import { WEBHOOK_ROUTES } from './fub-emulator.webhooks.routes';
import { id, object, type ApiContext, type ApiResult, type ApiRoute } from './fub-emulator.route';
import type { FieldsKind } from './fub-emulator.state';
import { badRequest, scalarText, type CustomFieldDef } from './fub-emulator.types';

export type { ApiContext, ApiResult, ApiRoute } from './fub-emulator.route';
export { personView } from './fub-emulator.people.routes';

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

// Notes, custom fields and pipelines; people and deals have their own files.
export const API_ROUTES: ApiRoute[] = [
  ...PEOPLE_ROUTES,
  ...DEAL_ROUTES,
  ...WEBHOOK_ROUTES,
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
