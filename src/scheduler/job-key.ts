import { isJobName, type JobName } from './job.types';

// The one name of a (brokerage, job) pair: the in-process keys (the runner's in-flight runs, the
// backoff, cron's SchedulerRegistry) and the pg-boss queue of the pair alike. It is the queue
// name pg-boss already stores (schedules, queues, jobs of running fleets), so it must not change;
// the in-process keys are rebuilt at every start and took it on freely. A brokerage id is a slug
// and no job name holds `__`, so a key splits back unambiguously.
const PREFIX = 'sync__';
const SEPARATOR = '__';

export interface JobPair {
  brokerageId: string;
  job: JobName;
}

export function jobKey(brokerageId: string, job: JobName): string {
  return `${PREFIX}${job}${SEPARATOR}${brokerageId}`;
}

// The pair a key names; undefined for any other name (another cron job, another pg-boss queue).
export function parseJobKey(key: string): JobPair | undefined {
  if (!key.startsWith(PREFIX)) return undefined;
  const rest = key.slice(PREFIX.length);
  const at = rest.indexOf(SEPARATOR);
  if (at < 0) return undefined;
  const job = rest.slice(0, at);
  const brokerageId = rest.slice(at + SEPARATOR.length);
  return isJobName(job) && brokerageId !== '' ? { brokerageId, job } : undefined;
}

export function isJobKeyOf(key: string, brokerageId: string): boolean {
  return parseJobKey(key)?.brokerageId === brokerageId;
}

// Named by jobKey(), though perhaps for a job or brokerage that no longer exists (a pg-boss schedule
// left by an older release): ours to drop.
export function isOwnJobKey(name: string): boolean {
  return name.startsWith(PREFIX);
}
