import type { Client } from '@hubspot/api-client';
import { AssociationSpecAssociationCategoryEnum } from '@hubspot/api-client/lib/codegen/crm/associations/v4';
import { CrmError } from '../crm.error';
import { withTaskKey } from '../crm-task-key';
import type { CrmRecordRef, CrmTask, CrmTaskInput } from '../crm.types';
import {
  HUBSPOT_OBJECT,
  MAX_BATCH_INPUTS,
  OWNER_PROPERTY,
  TASK_COMPLETED,
  TASK_NOT_STARTED,
  TASK_OBJECT,
  TASK_PROPERTIES,
  TASK_TO,
} from './hubspot.constants';
import type { HubSpotRequestRunner } from './hubspot-request.runner';
import { toCrmTask } from './hubspot-task.mapper';

// HubSpot's association reads answer at most 500 links a page (v4 spec: `limit` default 500).
const ASSOCIATION_PAGE = 500;

// Tasks as HubSpot's tasks guide has them (https://developers.hubspot.com/docs/api/crm/tasks): a
// task object associated with its deal or contact at creation, due at hs_timestamp, done when
// hs_task_status is COMPLETED. The daemon's key is the last line of hs_task_body (crm-task-key.ts).
export class HubSpotTaskStore {
  constructor(
    private readonly client: Client,
    private readonly runner: HubSpotRequestRunner,
  ) {}

  // Not idempotent: only a 429 (not acted on by HubSpot) is retried, never a timeout or a 5xx; the
  // caller finds a task whose answer was lost by its key (find). A task for the owner of a record
  // (`ownerOf`) gets that record's hubspot_owner_id, HubSpot's owner id for assigning records and
  // activities (owners guide); a record with no owner leaves the task unassigned, and so does an
  // owner HubSpot no longer takes (a deactivated user): a refused create made nothing, so it is
  // made again without the owner rather than lost.
  async create(task: CrmTaskInput): Promise<{ id: string }> {
    const ownerId = task.ownerId ?? (task.ownerOf ? await this.ownerOf(task.ownerOf) : undefined);
    try {
      return await this.createAs(task, ownerId);
    } catch (error) {
      const ownerRefused =
        error instanceof CrmError && error.code === 'INVALID_RECORD' && error.fields.includes(OWNER_PROPERTY);
      if (!ownerRefused || task.ownerId !== undefined || ownerId === undefined) throw error;
      await task.refusedBeforeRetry?.(error.message);
      return this.createAs(task, undefined);
    }
  }

  private async createAs(task: CrmTaskInput, ownerId: string | undefined): Promise<{ id: string }> {
    const body = withTaskKey(task.body, task.key, '\n\n');
    const created = await this.runner.run(
      {
        what: `create task ${task.key}`,
        lane: 'general',
        idempotent: false,
        record: task.about.id,
        ...(task.beforeSend ? { beforeSend: task.beforeSend } : {}),
        ...(task.refusedBeforeRetry ? { refusedBeforeRetry: task.refusedBeforeRetry } : {}),
      },
      () =>
        this.client.crm.objects.tasks.basicApi.create({
          properties: {
            hs_task_subject: task.subject,
            hs_task_body: body,
            hs_timestamp: task.dueAt.toISOString(),
            hs_task_status: TASK_NOT_STARTED,
            ...(ownerId ? { [OWNER_PROPERTY]: ownerId } : {}),
          },
          associations: [
            {
              to: { id: task.about.id },
              types: [
                {
                  associationCategory: AssociationSpecAssociationCategoryEnum.HubspotDefined,
                  associationTypeId: TASK_TO[task.about.kind],
                },
              ],
            },
          ],
        }),
    );
    return { id: created.id };
  }

  // The record's owner id; undefined when it has none or is gone.
  private async ownerOf(ref: CrmRecordRef): Promise<string | undefined> {
    try {
      const record = await this.runner.run(
        {
          what: `read the owner of ${ref.kind} ${ref.id}`,
          lane: 'general',
          idempotent: true,
          record: ref.id,
        },
        () => this.client.crm.objects.basicApi.getById(HUBSPOT_OBJECT[ref.kind], ref.id, [OWNER_PROPERTY]),
      );
      const owner = record.properties[OWNER_PROPERTY];
      return owner ? owner : undefined;
    } catch (error) {
      if (error instanceof CrmError && error.code === 'NOT_FOUND') return undefined;
      throw error;
    }
  }

  // The record's task ids from its associations (read-after-write, unlike search, which lags), then
  // the tasks themselves in batch reads of 100.
  async find(about: CrmRecordRef): Promise<CrmTask[]> {
    const ids = await this.taskIds(about);
    const tasks: CrmTask[] = [];
    for (let start = 0; start < ids.length; start += MAX_BATCH_INPUTS) {
      const chunk = ids.slice(start, start + MAX_BATCH_INPUTS);
      let answer;
      try {
        answer = await this.runner.run(
          {
            what: `read ${chunk.length} tasks of ${about.kind} ${about.id}`,
            lane: 'general',
            idempotent: true,
          },
          () =>
            this.client.crm.objects.tasks.batchApi.read({
              inputs: chunk.map((id) => ({ id })),
              properties: [...TASK_PROPERTIES],
              propertiesWithHistory: [],
            }),
        );
      } catch (error) {
        // Tasks deleted since the association read come back as 404 (all) or 207 (some): absent.
        if (error instanceof CrmError && error.code === 'NOT_FOUND') continue;
        throw error;
      }
      tasks.push(...answer.results.map((t) => toCrmTask(t.id, t.properties)));
    }
    return tasks;
  }

  // Idempotent: completing a completed task writes the same value; a deleted task is fine.
  async complete(id: string): Promise<void> {
    try {
      await this.runner.run(
        { what: `complete task ${id}`, lane: 'general', idempotent: true, record: id },
        () =>
          this.client.crm.objects.tasks.basicApi.update(id, {
            properties: { hs_task_status: TASK_COMPLETED },
          }),
      );
    } catch (error) {
      if (error instanceof CrmError && error.code === 'NOT_FOUND') return;
      throw error;
    }
  }

  private async taskIds(about: CrmRecordRef): Promise<string[]> {
    const ids: string[] = [];
    let after: string | undefined;
    do {
      let page;
      try {
        page = await this.runner.run(
          { what: `read the tasks linked to ${about.kind} ${about.id}`, lane: 'general', idempotent: true },
          () =>
            this.client.crm.associations.v4.basicApi.getPage(
              HUBSPOT_OBJECT[about.kind],
              about.id,
              TASK_OBJECT,
              after,
              ASSOCIATION_PAGE,
            ),
        );
      } catch (error) {
        // A deleted record has no tasks.
        if (error instanceof CrmError && error.code === 'NOT_FOUND') return ids;
        throw error;
      }
      ids.push(...page.results.map((r) => String(r.toObjectId)));
      after = page.paging?.next?.after;
    } while (after);
    return ids;
  }
}
