import { CrmError } from '../crm.error';
import { withTaskKey } from '../crm-task-key';
import type { CrmRecordRef, CrmTask, CrmTaskInput } from '../crm.types';
import { MAX_PAGE } from './followupboss.constants';
import type { FollowUpBossHttpClient } from './followupboss-http.client';
import { toCrmTask } from './followupboss-task.mapper';
import type { FubPage, FubPerson, FubTask } from './followupboss.wire';

// The type a task made by the daemon gets (FUB's task types include "Follow Up").
const TASK_TYPE = 'Follow Up';

// Tasks on FUB's /v1/tasks (docs.followupboss.com/reference/tasks-*): a task hangs on a person and
// is assigned to a user, and has a name but no description, so the daemon's key ends the name
// (crm-task-key.ts) and the body is not kept. A task about a deal goes on the deal's person
// (`personOf`, the same person a note about the deal goes on).
export class FollowUpBossTaskStore {
  constructor(
    private readonly http: FollowUpBossHttpClient,
    private readonly personOf: (about: CrmRecordRef) => Promise<string | undefined>,
  ) {}

  // Not idempotent: only a 429 is retried; the caller finds a task whose answer was lost by its key.
  async create(task: CrmTaskInput): Promise<{ id: string }> {
    const name = withTaskKey(task.subject, task.key, ' ');
    const personId = await this.personOf(task.about);
    if (!personId)
      throw new CrmError(
        'INVALID_RECORD',
        `create task ${task.key}: Follow Up Boss keeps tasks on people, and no person is linked to ${task.about.kind} ${task.about.id}`,
        { record: task.about.id },
      );
    const assignedUserId = task.ownerId ?? (await this.agentOf(personId));
    if (!assignedUserId)
      throw new CrmError(
        'INVALID_RECORD',
        `create task ${task.key}: Follow Up Boss needs a user to assign the task to, and person ${personId} has no agent`,
        { record: task.about.id },
      );
    const created = await this.http.call<FubTask>({
      method: 'POST',
      path: '/tasks',
      body: {
        personId: Number(personId),
        name,
        type: TASK_TYPE,
        assignedUserId: Number(assignedUserId),
        dueDateTime: fubDateTime(task.dueAt),
      },
      what: `create task ${task.key}`,
      idempotent: false,
      record: task.about.id,
      ...(task.beforeSend ? { beforeSend: task.beforeSend } : {}),
      ...(task.refusedBeforeRetry ? { refusedBeforeRetry: task.refusedBeforeRetry } : {}),
    });
    return { id: String(created.id) };
  }

  // The tasks of the record's person (FUB lists tasks by personId), every page.
  async find(about: CrmRecordRef): Promise<CrmTask[]> {
    const personId = await this.personOf(about);
    if (!personId) return [];
    const tasks: CrmTask[] = [];
    let next: string | undefined;
    do {
      const page = await this.http.call<FubPage>({
        method: 'GET',
        path: '/tasks',
        query: next ? { next, limit: MAX_PAGE } : { personId, limit: MAX_PAGE },
        what: `read the tasks of person ${personId}`,
        idempotent: true,
        record: about.id,
      });
      tasks.push(...((page.tasks as FubTask[] | undefined) ?? []).map(toCrmTask));
      next = page._metadata?.next ?? undefined;
    } while (next);
    return tasks;
  }

  // Idempotent: completing a completed task changes nothing; a deleted task is fine.
  async complete(id: string): Promise<void> {
    try {
      await this.http.call({
        method: 'PUT',
        path: `/tasks/${encodeURIComponent(id)}`,
        body: { isCompleted: true },
        what: `complete task ${id}`,
        idempotent: true,
        record: id,
      });
    } catch (error) {
      if (error instanceof CrmError && error.code === 'NOT_FOUND') return;
      throw error;
    }
  }

  // The person's agent: FUB's default assignee for work on that person.
  private async agentOf(personId: string): Promise<string | undefined> {
    const person = await this.http.call<FubPerson>({
      method: 'GET',
      path: `/people/${encodeURIComponent(personId)}`,
      what: `read person ${personId}`,
      idempotent: true,
      record: personId,
    });
    const agent = person.assignedUserId;
    return typeof agent === 'number' || (typeof agent === 'string' && agent !== '')
      ? String(agent)
      : undefined;
  }
}

// FUB's times are ISO-8601 with seconds (`2012-04-23T02:23:11Z`).
function fubDateTime(at: Date): string {
  return at.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
