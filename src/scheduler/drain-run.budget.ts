import { performance } from 'node:perf_hooks';

// How long a drain run goes on taking new work. Agents and the service can feed a drain as fast as a
// throttled remote lets it empty it (a readings sweep: a key shared with an operator's CLI under a
// five-a-second limit), and a run that never ends reports nothing, keeps its job's slot from cron's
// ticks, and never returns to the operator who started it with `cli sync`. Past this a run finishes
// the work in hand and ends; what is left is still due, and the next run (cron's next tick, seconds
// later) takes it. The daemon's own budget is DRAIN_RUN_SECONDS (this by default).
export const DRAIN_RUN_BUDGET_MS = 30_000;

// Whether a run that started now has spent its budget: asked between items, never during one.
export function drainRunBudget(budgetMs: number = DRAIN_RUN_BUDGET_MS): { spent(): boolean } {
  const startedAt = performance.now();
  return { spent: () => performance.now() - startedAt >= budgetMs };
}

// What a drain run that ended on its budget left for the next one, in words for the operator who
// ran it (`cli sync`): the work still waiting, by state. Undefined when nothing waits.
export function leftForNextRun(kind: string, waiting: Record<string, number>): string | undefined {
  const parts = Object.entries(waiting).filter(([, count]) => count > 0);
  const total = parts.reduce((sum, [, count]) => sum + count, 0);
  if (total === 0) return undefined;
  const states = parts.map(([state, count]) => `${count} ${state}`).join(', ');
  return `the run ended on its time budget with ${total} ${kind}${total === 1 ? '' : 's'} still waiting (${states}); the next run takes them as they come due`;
}
