import type PgBoss from 'pg-boss';
import type { WorkerDeath } from '../../ledger';
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

// Of the given queues ($1), the jobs held by a worker that died. A worker is alive while its beat
// is fresher than $2 seconds and its database session (LivenessSession, worker_heartbeats.
// session_pid) is still open, or its beat fresher than $3; one that records no session is judged by
// its beat alone (worker-liveness.ts). A job is abandoned when no run of its pair is `running` under
// a live owner, and either
// - a run of the pair is `running` under a dead owner (killed inside its run), and the job has been
//   active for $3 seconds (a live worker records its run within moments of fetching its job); or
// - the job has been active for $2 seconds with no live owner's run at all (killed between fetch and
//   claim, or between its run's end and the job's completion).
// A live holder's run keeps its job, however long it runs. With each, the owner of the pair's latest
// running run (the dead holder), if any, and whether that owner was found dead by its session (its
// beat not yet $2 old). Joins the ledger's `runs` and `worker_heartbeats` (same database, default
// schema) and pg_stat_activity (whose pids every role may read); all on the database's clock (the
// ledger's timestamps are UTC without a zone, pg-boss's are timestamptz). A pid PostgreSQL gave to a
// later session makes a dead worker look alive until its silence says otherwise: the safe side.
const ABANDONED_JOBS_SQL = `
  WITH live AS (
    SELECT h.owner FROM worker_heartbeats h
     WHERE h.beat_at > (now() AT TIME ZONE 'UTC') - make_interval(secs => $2)
       AND (h.session_pid IS NULL
            OR h.beat_at > (now() AT TIME ZONE 'UTC') - make_interval(secs => $3)
            OR EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.pid = h.session_pid))
  ),
  held AS (
    SELECT j.id, j.name, j.started_on, j.data->>'brokerageId' AS brokerage_id, j.data->>'job' AS job,
           (SELECT r.owner FROM runs r
             WHERE r.brokerage_id = j.data->>'brokerageId' AND r.job = j.data->>'job' AND r.status = 'running'
             ORDER BY r.id DESC LIMIT 1) AS owner
      FROM ${PG_BOSS_SCHEMA}.job j
     WHERE j.name = ANY($1::text[])
       AND j.state = 'active'
       AND j.started_on < now() - make_interval(secs => $3)
  )
  SELECT held.id, held.name, held.brokerage_id, held.job, held.owner,
         EXISTS (SELECT 1 FROM worker_heartbeats h
                  WHERE h.owner = held.owner
                    AND h.beat_at > (now() AT TIME ZONE 'UTC') - make_interval(secs => $2)) AS session_gone
    FROM held
   WHERE NOT EXISTS (
           SELECT 1 FROM runs r JOIN live ON live.owner = r.owner
            WHERE r.brokerage_id = held.brokerage_id AND r.job = held.job AND r.status = 'running')
     AND (held.owner IS NOT NULL OR held.started_on < now() - make_interval(secs => $2))
   ORDER BY held.started_on`;

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
  // Found dead by its database session gone, before its silence alone would say so.
  sessionGone: boolean;
}

interface AbandonedJobRow {
  id: string;
  name: string;
  brokerage_id: string;
  job: JobName;
  owner: string | null;
  session_gone: boolean;
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

  // The jobs of `queues` whose holders died (worker-liveness.ts), oldest first.
  async abandonedJobs(queues: string[], death: WorkerDeath): Promise<AbandonedJob[]> {
    if (queues.length === 0) return [];
    const { rows } = await this.db.executeSql(ABANDONED_JOBS_SQL, [
      queues,
      death.silentSeconds,
      death.sessionGoneSeconds,
    ]);
    return (rows as AbandonedJobRow[]).map((r) => ({
      id: r.id,
      queue: r.name,
      brokerageId: r.brokerage_id,
      job: r.job,
      owner: r.owner,
      sessionGone: r.session_gone,
    }));
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
