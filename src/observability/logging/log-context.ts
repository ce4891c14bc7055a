import { AsyncLocalStorage } from 'node:async_hooks';

// Carried through every await of a job run so each log line names its brokerage, job and run.
export interface LogContext {
  brokerageId?: string;
  job?: string;
  runId?: string | number;
}

const storage = new AsyncLocalStorage<LogContext>();

export function withLogContext<T>(context: LogContext, fn: () => T): T {
  return storage.run({ ...storage.getStore(), ...context }, fn);
}

export function currentLogContext(): LogContext {
  return storage.getStore() ?? {};
}
