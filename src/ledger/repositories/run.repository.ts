import { EntityManager, In, MoreThan } from 'typeorm';
import { Clock } from '../../common/clock';
import { Run, RunStatus } from '../entities';
import { interruptRuns, recoverPairClaims, type Recovered } from '../interrupted-work';
import { isPostgres } from '../ledger-sql';
import { LedgerTransactions } from '../ledger-transactions';
import type { RunOwners } from '../run-owner';
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

// A run claimed for this process, with what its dead predecessors left half-done and was recovered;
// or the run another live process holds of the same brokerage and job.
export type RunClaim =
  { run: Run; recovered: Recovered } | { heldBy: { runId: number; owner: string; startedAt: Date } };

// One row per job run, with what it did.
export interface FailureStreak {
  brokerageId: string;
  job: string;
  failures: number;
  since: Date;
  lastError: string | null;
}

export class RunRepository {
  constructor(
    private readonly tx: LedgerTransactions,
    private readonly clock: Clock,
    private readonly owners: RunOwners,
  ) {}

  start(brokerageId: string, job: string): Promise<Run> {
    return this.tx.exclusive((m) => this.insert(m, brokerageId, job));
  }

  // Starts a run of (brokerage, job) for this process unless another live process holds one: on a
  // SQLite ledger the daemon's cron and the operator's `cli sync` are two processes on one file, and
  // their JobRunners only see their own runs. A run whose holder is gone is marked interrupted and the
  // claims of the pair (commands sending, events processing) recovered, in the same transaction, so
  // nothing a live holder works on is ever taken from it. A run of this same process still marked
  // running was not finished (its JobRunner's in-flight map says it is not running): recovered too.
  // On PostgreSQL the pair's pg-boss singleton decides, and SingletonTakeover recovers.
  claim(brokerageId: string, job: string): Promise<RunClaim> {
    const none: Recovered = { runs: 0, outbox: 0, inbox: 0 };
    if (isPostgres(this.tx.dataSource))
      return this.start(brokerageId, job).then((run) => ({ run, recovered: none }));
    return this.tx.run(async (m) => {
      const running = await m.find(Run, {
        where: { brokerageId, job, status: 'running' },
        order: { id: 'ASC' },
      });
      const held = running.find(
        (r) => r.owner !== null && r.owner !== this.owners.self && this.owners.alive(r.owner),
      );
      if (held?.owner) return { heldBy: { runId: held.id, owner: held.owner, startedAt: held.startedAt } };
      let recovered = none;
      if (running.length > 0) {
        const now = this.clock.now();
        recovered = {
          runs: await interruptRuns(
            m,
            now,
            { id: In(running.map((r) => r.id)) },
            'the process holding this run stopped before it finished',
          ),
          ...(await recoverPairClaims(m, now, brokerageId, job)),
        };
      }
      return { run: await this.insert(m, brokerageId, job), recovered };
    });
  }

  private insert(m: EntityManager, brokerageId: string, job: string): Promise<Run> {
    return m.save(
      m.create(Run, {
        brokerageId,
        job,
        status: 'running',
        startedAt: this.clock.now(),
        owner: this.owners.self,
      }),
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

  // Per (brokerage, job) failing now: the failed runs since its last successful one, and when the
  // first of them started. Interrupted runs (a shutdown, a takeover) count neither way.
  async failureStreaks(): Promise<FailureStreak[]> {
    const rows = await this.tx.exclusive((m) =>
      m
        .createQueryBuilder(Run, 'r')
        .select('r.brokerageId', 'brokerageId')
        .addSelect('r.job', 'job')
        .addSelect('COUNT(*)', 'failures')
        .addSelect('MIN(r.id)', 'firstId')
        .addSelect('MAX(r.id)', 'lastId')
        .where("r.status = 'failed'")
        .andWhere(
          `r.id > COALESCE((SELECT MAX(s.id) FROM runs s WHERE s.brokerage_id = r.brokerage_id AND s.job = r.job AND s.status = 'succeeded'), 0)`,
        )
        .groupBy('r.brokerageId')
        .addGroupBy('r.job')
        .getRawMany<{ brokerageId: string; job: string; failures: string | number; firstId: string | number; lastId: string | number }>(),
    );
    if (rows.length === 0) return [];
    const ids = rows.flatMap((r) => [Number(r.firstId), Number(r.lastId)]);
    const runs = new Map(
      (await this.tx.exclusive((m) => m.find(Run, { where: { id: In(ids) } }))).map((r) => [r.id, r]),
    );
    return rows.map((r) => ({
      brokerageId: r.brokerageId,
      job: r.job,
      failures: Number(r.failures),
      since: runs.get(Number(r.firstId))?.startedAt ?? this.clock.now(),
      lastError: runs.get(Number(r.lastId))?.error ?? null,
    }));
  }

  lastSuccess(brokerageId: string, job?: string): Promise<Run | null> {
    return this.tx.exclusive((m) =>
      m.findOne(Run, { where: { brokerageId, job, status: 'succeeded' }, order: { id: 'DESC' } }),
    );
  }

  // At start: runs a crash cut short are marked interrupted. With a brokerage and job: only that
  // pair's, when a worker takes over its singleton from a dead one.
  recoverInterrupted(only?: { brokerageId: string; job: string }): Promise<number> {
    return this.tx.run((m) =>
      interruptRuns(m, this.clock.now(), only ? { brokerageId: only.brokerageId, job: only.job } : {}),
    );
  }
}
