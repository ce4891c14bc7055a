import { AsyncLocalStorage } from 'node:async_hooks';

// Whose call is waiting for a remote account's budget. `foreground`: work an agent or the service
// is waiting on (the agent's decisions and creates in the outbox, events, the agent's CRM edits);
// `background`: catch-up passes that look again at what the events should already have shown (the
// offers reconcile, the marketplace). When a remote slows a key down (429s cut its pace), a
// limiter serves the foreground calls first, so an agent's click is not queued behind a
// reconcile's pages: readings sweep 1572 saw a drain on three calls a second wait on every pass.
export type CallPriority = 'foreground' | 'background';

const storage = new AsyncLocalStorage<CallPriority>();

// Runs `fn`, and every call it makes through a limiter, with `priority`.
export function withCallPriority<T>(priority: CallPriority, fn: () => T): T {
  return storage.run(priority, fn);
}

// The priority of the calls made here: foreground unless a caller said otherwise.
export function currentCallPriority(): CallPriority {
  return storage.getStore() ?? 'foreground';
}
