import type PgBoss from 'pg-boss';
import { isOwnJobKey } from '../job-key';
import { PG_BOSS_SCHEMA } from './pg-boss.engine';

// The only reads and writes of pg-boss's own tables, outside its API: pg-boss 10 fetches from one
// named queue at a time and has no call that says which of many queues have work, nor one that
// raises a queued job's priority. The dispatcher's go through pg-boss's own connection pool, on the
// indexes it keeps for fetch. What they rely on of its `job` table (columns name, state, data,
// start_after, priority, created_on, started_on, completed_on; its state enum ordered
// created < retry < active) is pinned against the installed pg-boss by
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
