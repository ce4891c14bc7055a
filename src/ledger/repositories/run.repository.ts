import { EntityManager, In, LessThanOrEqual, MoreThan, MoreThanOrEqual } from 'typeorm';
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
  // On PostgreSQL, where other workers' liveness cannot be told, the pair's pg-boss singleton
  // decides: its holder (`singletonHeld`) recovers whatever is still marked running for the pair, an
  // earlier holder's that stopped, and any claim of the pair still out (an event still
  // `processing`, a command `sending`) with or without its run; a run without it (a test's direct
  // run) recovers nothing.
  // This is the one takeover path, for both engines.
  claim(brokerageId: string, job: string, how: { singletonHeld?: boolean } = {}): Promise<RunClaim> {
    const none: Recovered = { runs: 0, outbox: 0, inbox: 0 };
    const ownersTell = !isPostgres(this.tx.dataSource);
    if (!ownersTell && !how.singletonHeld)
      return this.start(brokerageId, job).then((run) => ({ run, recovered: none }));
    return this.tx.run(async (m) => {
      const running = await m.find(Run, {
        where: { brokerageId, job, status: 'running' },
        order: { id: 'ASC' },
      });
      const held = how.singletonHeld
        ? undefined
        : running.find((r) => r.owner !== null && r.owner !== this.owners.self && this.owners.alive(r.owner));
      if (held?.owner) return { heldBy: { runId: held.id, owner: held.owner, startedAt: held.startedAt } };
      let recovered = none;
      // The singleton's holder recovers the pair's claims even with no run left running: a run
      // taken over while its worker lived on (starved past its heartbeats) may have claimed again
      // before it stopped, and ended without letting go; nobody else holds the pair now.
      if (running.length > 0 || (how.singletonHeld && !ownersTell)) {
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

  // Of these runs, those no longer `running`: on a shared ledger, runs of this worker another worker
  // took over (marked interrupted) while it thought it was still running them.
  async notRunning(runIds: readonly number[]): Promise<number[]> {
    if (runIds.length === 0) return [];
    const still = await this.tx.exclusive((m) =>
      m.find(Run, { select: { id: true }, where: { id: In([...runIds]), status: 'running' } }),
    );
    const running = new Set(still.map((r) => r.id));
    return runIds.filter((id) => !running.has(id));
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

  // Per (brokerage, job) failing now: the failed runs since its last successful one (looking back at
  // most `depth` finished runs, newest first, through the (brokerage, job, id) index), and when the
  // first of them started. Interrupted runs (a shutdown, a takeover) count neither way.
  async failureStreaks(
    pairs: { brokerageId: string; job: string }[],
    depth: number,
  ): Promise<FailureStreak[]> {
    const streaks: FailureStreak[] = [];
    for (const { brokerageId, job } of pairs) {
      const recent = await this.tx.exclusive((m) =>
        m.find(Run, {
          where: { brokerageId, job, status: In<RunStatus>(['failed', 'succeeded']) },
          order: { id: 'DESC' },
          take: depth,
        }),
      );
      const failed: Run[] = [];
      for (const run of recent) {
        if (run.status !== 'failed') break;
        failed.push(run);
      }
      if (failed.length > 0)
        streaks.push({
          brokerageId,
          job,
          failures: failed.length,
          since: failed[failed.length - 1].startedAt,
          lastError: failed[0].error,
        });
    }
    return streaks;
  }

  // Runs of (brokerage, job) wholly inside [from, to] that succeeded with no record failing: each
  // read everything its job reads in that span and wrote all it read.
  cleanRunsWithin(brokerageId: string, job: string, from: Date, to: Date): Promise<Run[]> {
    return this.tx.exclusive((m) =>
      m.find(Run, {
        where: {
          brokerageId,
          job,
          status: 'succeeded',
          failedCount: 0,
          startedAt: MoreThanOrEqual(from),
          finishedAt: LessThanOrEqual(to),
        },
        order: { id: 'ASC' },
      }),
    );
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
