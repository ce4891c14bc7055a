import { In, MoreThan } from 'typeorm';
import { Clock } from '../../common/clock';
import { Run, RunStatus } from '../entities';
import { LedgerTransactions } from '../ledger-transactions';
import { LedgerStateError } from './ledger-state.error';

export interface RunCounts {
  read: number;
  created: number;
  updated: number;
  unchanged: number;
  failed: number;
}

export interface RunFinish {
  counts: RunCounts;
  status: Exclude<RunStatus, 'running'>;
  error?: string | null;
}

// One row per job run, with what it did.
export class RunRepository {
  constructor(
    private readonly tx: LedgerTransactions,
    private readonly clock: Clock,
  ) {}

  start(brokerageId: string, job: string): Promise<Run> {
    return this.tx.exclusive((m) =>
      m.save(m.create(Run, { brokerageId, job, status: 'running', startedAt: this.clock.now() })),
    );
  }

  finish(runId: number, outcome: RunFinish): Promise<Run> {
    return this.tx.run(async (m) => {
      const { counts } = outcome;
      const result = await m.update(
        Run,
        { id: runId, status: 'running' },
        {
          status: outcome.status,
          finishedAt: this.clock.now(),
          readCount: counts.read,
          createdCount: counts.created,
          updatedCount: counts.updated,
          unchangedCount: counts.unchanged,
          failedCount: counts.failed,
          error: outcome.error ?? null,
        },
      );
      const run = await m.findOne(Run, { where: { id: runId } });
      if ((result.affected ?? 0) !== 1 || !run) {
        throw new LedgerStateError('run', runId, run?.status ?? null, outcome.status, ['running']);
      }
      return run;
    });
  }

  // The latest run of each (brokerage, job).
  lastRuns(brokerageId?: string): Promise<Run[]> {
    return this.tx.exclusive((m) => {
      const latest = m
        .createQueryBuilder(Run, 'r')
        .where((qb) => {
          const sub = qb
            .subQuery()
            .select('MAX(s.id)')
            .from(Run, 's')
            .groupBy('s.brokerageId')
            .addGroupBy('s.job');
          if (brokerageId !== undefined) sub.where('s.brokerageId = :brokerageId', { brokerageId });
          return `r.id IN ${sub.getQuery()}`;
        })
        .orderBy('r.brokerageId')
        .addOrderBy('r.job');
      return latest.getMany();
    });
  }

  // Newest first. `failed`: failed or interrupted runs; `changed`: runs that created, updated or
  // failed a record (the ones worth reading among the many empty ones).
  list(
    filter: { brokerageId?: string; job?: string; limit?: number; failed?: boolean; changed?: boolean } = {},
  ): Promise<Run[]> {
    const base = { brokerageId: filter.brokerageId, job: filter.job };
    const status = filter.failed ? In<RunStatus>(['failed', 'interrupted']) : undefined;
    const where = filter.changed
      ? [
          { ...base, status, createdCount: MoreThan(0) },
          { ...base, status, updatedCount: MoreThan(0) },
          { ...base, status, failedCount: MoreThan(0) },
        ]
      : { ...base, status };
    return this.tx.exclusive((m) => m.find(Run, { where, order: { id: 'DESC' }, take: filter.limit ?? 50 }));
  }

  lastSuccess(brokerageId: string, job?: string): Promise<Run | null> {
    return this.tx.exclusive((m) =>
      m.findOne(Run, { where: { brokerageId, job, status: 'succeeded' }, order: { id: 'DESC' } }),
    );
  }

  // At start: runs a crash cut short are marked interrupted. With a brokerage and job: only that
  // pair's, when a worker takes over its singleton from a dead one.
  recoverInterrupted(only?: { brokerageId: string; job: string }): Promise<number> {
    return this.tx.run(async (m) => {
      const result = await m.update(
        Run,
        only ? { status: 'running', brokerageId: only.brokerageId, job: only.job } : { status: 'running' },
        { status: 'interrupted', finishedAt: this.clock.now(), error: 'the daemon stopped during this run' },
      );
      return result.affected ?? 0;
    });
  }
}
