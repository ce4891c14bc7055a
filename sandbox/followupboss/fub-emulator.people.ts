import { customView } from './fub-emulator.values';
import type { FubState } from './fub-emulator.state';
import { badRequest, type StoredRecord } from './fub-emulator.types';

// A person as /v1/people shows it (crm-apis.md B2, B6).
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
    // The person's agent (people-post: assignedUserId / assignedTo); the emulator keeps no users.
    assignedUserId: f.assignedUserId ?? null,
    assignedTo: f.assignedTo ?? null,
    ...customView(f, fields, false),
  };
}

export function personFields(
  state: FubState,
  body: Record<string, unknown>,
  creating: boolean,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...state.customPart('people', body) };
  const keys = ['firstName', 'lastName', 'stage', 'tags', 'emails', 'phones', 'price', 'background'];
  for (const key of [...keys, 'assignedUserId', 'assignedTo']) {
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

// The person already holding one of the emails, for ?deduplicate=true.
export function personWithEmail(state: FubState, fields: Record<string, unknown>): StoredRecord | undefined {
  const emails = ((fields.emails as { value: string }[] | undefined) ?? []).map((e) => e.value.toLowerCase());
  return [...state.records.people.values()].find((p) =>
    ((p.fields.emails as { value: string }[] | undefined) ?? []).some((e) =>
      emails.includes(e.value.toLowerCase()),
    ),
  );
}
