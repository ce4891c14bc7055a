import { commonFilters } from './fub-emulator.list';
import { fubTime, type FubState } from './fub-emulator.state';
import { badRequest, scalarText, type StoredRecord } from './fub-emulator.types';

// /v1/tasks (docs.followupboss.com/reference/tasks-get, tasks-post, tasks-id-get, tasks-id-put,
// tasks-id-delete): a task hangs on a person and is assigned to a user. FUB has no description
// field on a task: its text is its `name`.
const CREATE_FIELDS = [
  'personId',
  'name',
  'type',
  'assignedUserId',
  'assignedTo',
  'dueDate',
  'dueDateTime',
  'remindSecondsBefore',
  'isCompleted',
];
// PUT's schema declares no due date or reminder (tasks-id-put).
const UPDATE_FIELDS = ['personId', 'name', 'type', 'assignedUserId', 'assignedTo', 'isCompleted'];
const DATE = /^\d{4}-\d{2}-\d{2}$/;
// ISO-8601 with a time and, optionally, a zone: `2026-11-16T15:00:00-05:00`, `...Z`.
const DATE_TIME = /^(\d{4}-\d{2}-\d{2})T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/;

// A task as /v1/tasks shows it: `isCompleted` as 0/1 and the assignee's name under `AssignedTo`,
// as a live account's GET /v1/tasks answers (see docs/crm-followupboss.md).
export function taskView(r: StoredRecord): Record<string, unknown> {
  const f = r.fields;
  return {
    id: r.id,
    created: r.created,
    updated: r.updated,
    completed: f.completed ?? null,
    personId: f.personId,
    AssignedTo: f.assignedTo ?? null,
    assignedUserId: f.assignedUserId ?? null,
    name: f.name,
    type: f.type,
    isCompleted: f.isCompleted === true ? 1 : 0,
    dueDate: f.dueDate ?? null,
    dueDateTime: f.dueDateTime ?? null,
    remindSecondsBefore: f.remindSecondsBefore ?? null,
  };
}

// The stored fields of a POST (creating) or PUT, checked as FUB does: a person that exists, a name,
// an assignee (assignedUserId or assignedTo) on create, and no field a task does not have.
export function taskFields(
  state: FubState,
  body: Record<string, unknown>,
  creating: boolean,
): Record<string, unknown> {
  const allowed = creating ? CREATE_FIELDS : UPDATE_FIELDS;
  const unknown = Object.keys(body).find((key) => !allowed.includes(key));
  if (unknown !== undefined) throw badRequest(`Invalid field for a task: ${unknown}`);
  const out: Record<string, unknown> = {};
  if (creating && body.personId === undefined) throw badRequest('personId is required');
  if (body.personId !== undefined) {
    const personId = Number(body.personId);
    if (!state.records.people.has(personId))
      throw badRequest(`Invalid person id: ${scalarText(body.personId)}`);
    out.personId = personId;
  }
  if (creating && (typeof body.name !== 'string' || body.name.trim() === ''))
    throw badRequest('name is required');
  if (body.name !== undefined) out.name = scalarText(body.name);
  if (creating && body.assignedUserId === undefined && body.assignedTo === undefined)
    throw badRequest('assignedUserId or assignedTo is required');
  if (body.assignedUserId !== undefined) {
    const userId = Number(body.assignedUserId);
    if (!Number.isInteger(userId) || userId < 1)
      throw badRequest(`Invalid assignedUserId: ${scalarText(body.assignedUserId)}`);
    out.assignedUserId = userId;
  }
  if (body.assignedTo !== undefined) out.assignedTo = scalarText(body.assignedTo);
  out.type = body.type !== undefined ? scalarText(body.type) : creating ? 'Follow Up' : undefined;
  if (out.type === undefined) delete out.type;
  Object.assign(out, dueFields(body));
  if (body.remindSecondsBefore !== undefined) {
    if (!out.dueDateTime) throw badRequest('remindSecondsBefore needs a dueDateTime');
    out.remindSecondsBefore = Number(body.remindSecondsBefore);
  }
  if (body.isCompleted !== undefined) {
    out.isCompleted = completedFlag(body.isCompleted);
    out.completed = out.isCompleted ? fubTime(state.now()) : null;
  } else if (creating) {
    out.isCompleted = false;
  }
  return out;
}

// A PUT that completes an already completed task keeps the first completion time.
export function keepCompletionTime(
  before: StoredRecord,
  fields: Record<string, unknown>,
): Record<string, unknown> {
  return before.fields.isCompleted === true && fields.isCompleted === true
    ? { ...fields, completed: before.fields.completed }
    : fields;
}

// The task filters: the common ones, plus personId and assignedUserId.
export function taskMatcher(r: StoredRecord, q: Record<string, string>): boolean {
  if (!commonFilters(r, q)) return false;
  if (q.personId && String(r.fields.personId) !== q.personId) return false;
  if (q.assignedUserId && String(r.fields.assignedUserId) !== q.assignedUserId) return false;
  return true;
}

// dueDateTime is kept in UTC (FUB shows every time in UTC); dueDate is its day as written.
function dueFields(body: Record<string, unknown>): Record<string, unknown> {
  if (body.dueDateTime !== undefined && body.dueDateTime !== null) {
    const text = scalarText(body.dueDateTime);
    const match = DATE_TIME.exec(text);
    const at = Date.parse(match && !match[4] ? `${text}Z` : text);
    if (!match || Number.isNaN(at)) throw badRequest(`Invalid dueDateTime: ${text}`);
    return { dueDateTime: fubTime(at), dueDate: match[1] };
  }
  if (body.dueDate !== undefined && body.dueDate !== null) {
    const text = scalarText(body.dueDate);
    if (!DATE.test(text) || Number.isNaN(Date.parse(text))) throw badRequest(`Invalid dueDate: ${text}`);
    return { dueDate: text, dueDateTime: null };
  }
  return {};
}

function completedFlag(value: unknown): boolean {
  if (value === true || value === 1 || value === '1' || value === 'true') return true;
  if (value === false || value === 0 || value === '0' || value === 'false') return false;
  throw badRequest(`Invalid isCompleted: ${scalarText(value)}`);
}
