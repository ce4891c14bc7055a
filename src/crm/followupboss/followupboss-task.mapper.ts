import { readTaskKey } from '../crm-task-key';
import type { CrmTask } from '../crm.types';
import type { FubTask } from './followupboss.wire';

// A FUB task in the port's words. `isCompleted` comes as 0/1 from a live account (and as a boolean
// in FUB's examples): both are read. A task due on a day without a time has no dueAt.
export function toCrmTask(task: FubTask): CrmTask {
  const { key, text } = readTaskKey(task.name);
  const due = task.dueDateTime ? new Date(task.dueDateTime) : null;
  return {
    id: String(task.id),
    key,
    completed: task.isCompleted === true || Number(task.isCompleted) === 1,
    dueAt: due && !Number.isNaN(due.getTime()) ? due : null,
    subject: text,
  };
}
