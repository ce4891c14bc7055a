import type PgBoss from 'pg-boss';
import type { JobName } from '../job.types';
import { isOwnJobKey } from '../job-key';
import { PG_BOSS_SCHEMA } from './pg-boss.engine';

// The only reads and writes of pg-boss's own tables, outside its API: pg-boss 10 fetches from one
// named queue at a time and has no call that says which of many queues have work, nor one that
// raises a queued job's priority, nor one that finds the jobs of a dead worker (it only expires them
// after their lease) and takes one over only if it is still active. The dispatcher's go through pg-boss's own connection pool, on the
// indexes it keeps for fetch. What they rely on of its `job` table (columns name, state, data,
// start_after, priority, created_on, started_on, completed_on, id; its state enum ordered
// created < retry < active, and 'cancelled') is pinned against the installed pg-boss by
// test/medium/scheduler/pg-boss-tables.medium-spec.ts.

// Of the given queues ($2), those with a job ready to start and none running anywhere, at most $1.
// Brokerages with nothing running come first: one already being synced is held by its own remote
// limits, so a free slot does more for one that is not (two of its jobs would only share its
// budget). Then jobs with known work (a higher priority: the drain of writes a run just queued, an
// early run) before routine ticks, then the job waiting longest first, so every brokerage gets its
// turn. A tick's job is queued while the pair's previous run is still going: it waits from that
// run's end ($3, the ends of the runs this worker finished), not from the tick. (By age alone such
// a poll, which will most likely find nothing, went ahead of another brokerage's first poll or its
// drain of a backlog, holding a slot for the poll's few rate-limited calls.)
// A queue whose previous job is still running is left out: pg-boss would refuse to start a second
// one of a stately queue.
const READY_QUEUES_SQL = `
  WITH active AS (
    SELECT name, data->>'brokerageId' AS brokerage_id
      FROM ${PG_BOSS_SCHEMA}.job
     WHERE name = ANY($2::text[]) AND state = 'active'
  )
  SELECT j.name, min(j.data->>'brokerageId') AS brokerage_id
    FROM ${PG_BOSS_SCHEMA}.job j
   WHERE j.name = ANY($2::text[])
     AND j.state < 'active'
     AND j.start_after < now()
     AND j.name NOT IN (SELECT name FROM active)
   GROUP BY j.name
   ORDER BY bool_or(j.data->>'brokerageId' IN (SELECT brokerage_id FROM active)),
            max(j.priority) DESC,
            GREATEST(min(j.created_on), to_timestamp(($3::jsonb->>j.name)::float8 / 1000))
   LIMIT $1`;

// A stately queue keeps one job queued: a send while a tick's job waits is dropped, so that job is
// raised instead.
const PROMOTE_SQL = `
  UPDATE ${PG_BOSS_SCHEMA}.job SET priority = $2
   WHERE name = $1 AND state = 'created' AND priority < $2`;

// Of the given queues ($1), the jobs held by a worker that died: active for longer than a worker
// may stay silent ($2 seconds, worker-liveness.ts), while no run of the pair is `running` under an
// owner whose heartbeat is that fresh. So a holder killed inside its run (its run row still says
// running, under its owner), and one killed between fetch and claim or between its run's end and
// the job's completion (no running row at all) are both found; a live holder's run keeps its job,
// however long it runs. With each, the owner of the pair's latest running run (the dead holder), if
// any. Joins the ledger's `runs` and `worker_heartbeats` (same database, default schema); all on
// the database's clock (the ledger's timestamps are UTC without a zone, pg-boss's are timestamptz).
const ABANDONED_JOBS_SQL = `
  SELECT j.id, j.name, j.data->>'brokerageId' AS brokerage_id, j.data->>'job' AS job,
         (SELECT r.owner FROM runs r
           WHERE r.brokerage_id = j.data->>'brokerageId' AND r.job = j.data->>'job' AND r.status = 'running'
           ORDER BY r.id DESC LIMIT 1) AS owner
    FROM ${PG_BOSS_SCHEMA}.job j
   WHERE j.name = ANY($1::text[])
     AND j.state = 'active'
     AND j.started_on < now() - make_interval(secs => $2)
     AND NOT EXISTS (
       SELECT 1 FROM runs r JOIN worker_heartbeats h ON h.owner = r.owner
        WHERE r.brokerage_id = j.data->>'brokerageId' AND r.job = j.data->>'job' AND r.status = 'running'
          AND h.beat_at > (now() AT TIME ZONE 'UTC') - make_interval(secs => $2))
   ORDER BY j.started_on`;

// pg-boss's cancelJobs (plans.js), for one job and only while it is still active: the row count says
// which of the workers that found it abandoned took it over. Cancelled, not failed: pg-boss's
// fail/retry keeps the job's id, and a holder that was only slow would then complete its successor's
// job; a cancelled job's holder completes nothing (completeJobs wants it active).
const CANCEL_ACTIVE_SQL = `
  UPDATE ${PG_BOSS_SCHEMA}.job SET completed_on = now(), state = 'cancelled'
   WHERE name = $1 AND id = $2::uuid AND state = 'active'
   RETURNING id`;

// Every job still in the table (pg-boss archives completed ones after a while) with its times.
const JOB_TIMES_SQL = `
  SELECT name,
         EXTRACT(EPOCH FROM GREATEST(created_on, start_after)) * 1000 AS ready,
         EXTRACT(EPOCH FROM started_on) * 1000 AS started,
         EXTRACT(EPOCH FROM completed_on) * 1000 AS completed
    FROM ${PG_BOSS_SCHEMA}.job
   ORDER BY created_on`;

export interface ReadyQueue {
  name: string;
  brokerageId: string;
}

// A job whose holder is dead, and who that was (null: it died before its run was recorded).
export interface AbandonedJob {
  id: string;
  queue: string;
  brokerageId: string;
  job: JobName;
  owner: string | null;
}

// When one (brokerage, job) pair's job could start, started and completed (epoch ms).
export interface SyncJobTimes {
  queue: string;
  ready: number;
  started: number | null;
  completed: number | null;
}

// `db`: pg-boss's own (`boss.getDb()`), or any connection to its database (a bench reading a round
// after its workers stopped).
export class PgBossTables {
  constructor(private readonly db: PgBoss.Db) {}

  // `ended`: when this worker last finished a job of each queue (epoch ms).
  async readyQueues(
    queues: string[],
    ended: ReadonlyMap<string, number>,
    limit: number,
  ): Promise<ReadyQueue[]> {
    const { rows } = await this.db.executeSql(READY_QUEUES_SQL, [
      limit,
      queues,
      JSON.stringify(Object.fromEntries(ended)),
    ]);
    return (rows as { name: string; brokerage_id: string }[]).map((r) => ({
      name: r.name,
      brokerageId: r.brokerage_id,
    }));
  }

  // Raises the job waiting on `queue` (if any) to at least `priority`.
  async promoteQueued(queue: string, priority: number): Promise<void> {
    await this.db.executeSql(PROMOTE_SQL, [queue, priority]);
  }

  // The jobs of `queues` whose holders died (silent for `deadAfterSeconds`), oldest first.
  async abandonedJobs(queues: string[], deadAfterSeconds: number): Promise<AbandonedJob[]> {
    if (queues.length === 0) return [];
    const { rows } = await this.db.executeSql(ABANDONED_JOBS_SQL, [queues, deadAfterSeconds]);
    return (
      rows as { id: string; name: string; brokerage_id: string; job: JobName; owner: string | null }[]
    ).map((r) => ({ id: r.id, queue: r.name, brokerageId: r.brokerage_id, job: r.job, owner: r.owner }));
  }

  // Cancels `id` if it is still active; answers whether it was.
  async cancelActive(queue: string, id: string): Promise<boolean> {
    const { rows } = await this.db.executeSql(CANCEL_ACTIVE_SQL, [queue, id]);
    return rows.length === 1;
  }

  // The sync jobs' times, oldest first: where a round's time went (bench:scale's trace).
  async syncJobTimes(): Promise<SyncJobTimes[]> {
    const { rows } = await this.db.executeSql(JOB_TIMES_SQL, []);
    const at = (value: unknown) => (value === null ? null : Number(value));
    return (rows as { name: string; ready: unknown; started: unknown; completed: unknown }[])
      .filter((r) => isOwnJobKey(r.name))
      .map((r) => ({
        queue: r.name,
        ready: Number(r.ready),
        started: at(r.started),
        completed: at(r.completed),
      }));
  }
}
