import { commonFilters, listRecords } from './fub-emulator.list';
import { customView, id, object, type ApiContext, type ApiResult, type ApiRoute } from './fub-emulator.route';
import type { FubState } from './fub-emulator.state';
import { badRequest, type StoredRecord } from './fub-emulator.types';

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

function listPeople(ctx: ApiContext): ApiResult {
  const page = listRecords(ctx.state.records.people.values(), ctx.query, 'people', '-created', commonFilters);
  const fields = page.q.fields ?? null;
  return {
    status: 200,
    body: { _metadata: page.metadata, people: page.items.map((p) => personView(p, fields)) },
  };
}

// /v1/people (crm-apis.md B2, B6).
export const PEOPLE_ROUTES: ApiRoute[] = [
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
];
