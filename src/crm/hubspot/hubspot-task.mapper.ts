import { readTaskKey } from '../crm-task-key';
import type { CrmTask } from '../crm.types';
import { TASK_COMPLETED } from './hubspot.constants';

// A HubSpot task in the port's words: the key read back from the body, the due time from
// hs_timestamp (ISO, or epoch milliseconds as some portals send datetimes).
export function toCrmTask(id: string, properties: Record<string, string | null>): CrmTask {
  const due = properties.hs_timestamp;
  const at = due ? (/^\d+$/.test(due) ? new Date(Number(due)) : new Date(due)) : null;
  return {
    id,
    key: readTaskKey(properties.hs_task_body).key,
    completed: properties.hs_task_status === TASK_COMPLETED,
    dueAt: at && !Number.isNaN(at.getTime()) ? at : null,
    subject: properties.hs_task_subject ?? '',
  };
}
