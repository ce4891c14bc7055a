import { EntityManager, In, Not, type FindOptionsWhere } from 'typeorm';
import { InboxEvent, OutboxCommand, Run } from './entities';

// What a process that stopped (a crash, a SIGKILL) left half-done, put right inside the caller's
// transaction: its runs marked interrupted, the outbox commands it was sending made `unknown` (they
// may have reached the service: reconciled, never re-sent blindly), the inbox events it was
// processing made pending again. Only the outbox drain marks commands sending and only the inbox
// drain marks events processing, so a brokerage's claims belong to whoever runs that job for it.

export interface Recovered {
  runs: number;
  outbox: number;
  inbox: number;
}

// Which brokerages' claims: one, all but some (those a live process is working on), or all.
export interface ClaimScope {
  brokerageId?: string;
  exceptBrokerages?: string[];
}

function brokerageWhere(scope: ClaimScope): FindOptionsWhere<{ brokerageId: string }> {
  if (scope.brokerageId !== undefined) return { brokerageId: scope.brokerageId };
  if (scope.exceptBrokerages?.length) return { brokerageId: Not(In(scope.exceptBrokerages)) };
  return {};
}

export async function interruptRuns(
  m: EntityManager,
  now: Date,
  where: FindOptionsWhere<Run>,
  error = 'the daemon stopped during this run',
): Promise<number> {
  const result = await m.update(
    Run,
    { ...where, status: 'running' },
    { status: 'interrupted', finishedAt: now, error },
  );
  return result.affected ?? 0;
}

export async function sendingToUnknown(m: EntityManager, now: Date, scope: ClaimScope): Promise<number> {
  const result = await m.update(
    OutboxCommand,
    { ...brokerageWhere(scope), state: 'sending' },
    {
      state: 'unknown',
      lastError: 'the daemon stopped while this command was being sent',
      nextAttemptAt: null,
      updatedAt: now,
    },
  );
  return result.affected ?? 0;
}

export async function processingToPending(m: EntityManager, scope: ClaimScope): Promise<number> {
  const result = await m.update(
    InboxEvent,
    { ...brokerageWhere(scope), status: 'processing' },
    { status: 'pending' },
  );
  return result.affected ?? 0;
}

// The claims of one (brokerage, job) whose holder is gone.
export async function recoverPairClaims(
  m: EntityManager,
  now: Date,
  brokerageId: string,
  job: string,
): Promise<Pick<Recovered, 'outbox' | 'inbox'>> {
  return {
    outbox: job === 'outbox-drain' ? await sendingToUnknown(m, now, { brokerageId }) : 0,
    inbox: job === 'inbox-drain' ? await processingToPending(m, { brokerageId }) : 0,
  };
}
