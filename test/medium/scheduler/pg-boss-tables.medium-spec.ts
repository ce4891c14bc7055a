import { Client } from 'pg';
import type PgBoss from 'pg-boss';
import { openLedger, type Ledger } from '../../../src/ledger/ledger';
import { jobKey } from '../../../src/scheduler/job-key';
import type { JobName } from '../../../src/scheduler/job.types';
import { createPgBoss, PG_BOSS_SCHEMA } from '../../../src/scheduler/pg-boss/pg-boss.engine';
import { syncQueueOptions, type SyncJobData } from '../../../src/scheduler/pg-boss/pg-boss.queues';
import { PgBossTables } from '../../../src/scheduler/pg-boss/pg-boss.tables';
import type { WorkerDeath } from '../../../src/ledger';
import {
  createTestPostgresDatabase,
  testPostgresUrl,
  type TestPostgresDatabase,
} from '../../support/postgres-database';
import { waitFor } from '../../support/wait-for';

// PgBossTables reads pg-boss's private `job` table, which pg-boss may change in any release. Pinned
// here against the pg-boss installed: the schema it creates still has what the SQL relies on, and
// the SQL still ranks and promotes as the dispatcher expects. An upgrade that breaks either fails
// here, not in a fleet.
(testPostgresUrl() ? describe : describe.skip)(
  'pg-boss tables, as the installed pg-boss creates them',
  () => {
    let db: TestPostgresDatabase;
    let boss: PgBoss;
    let tables: PgBossTables;
    // The ledger's tables in the same database: the takeover query joins its runs and heartbeats.
    let ledger: Ledger;
    const sql = async <T>(text: string): Promise<T[]> =>
      (await boss.getDb().executeSql(text, [])).rows as T[];

    beforeAll(async () => {
      db = await createTestPostgresDatabase('pgboss_tables');
      ledger = await openLedger({ databasePath: '', url: db.url });
      boss = await createPgBoss({ ledgerUrl: db.url, jobLeaseSeconds: 60 }, 'one-off');
      await boss.start();
      tables = new PgBossTables(boss.getDb());
    });
    afterAll(async () => {
      await boss.stop({ graceful: false, wait: true });
      await ledger.close();
      await db.drop();
    });

    it('has the job columns the SQL reads, of the types it reads them as', async () => {
      const columns = await sql<{ column_name: string; data_type: string; udt_name: string }>(
        `SELECT column_name, data_type, udt_name FROM information_schema.columns
        WHERE table_schema = '${PG_BOSS_SCHEMA}' AND table_name = 'job'`,
      );
      const typeOf = (name: string) => {
        const column = columns.find((c) => c.column_name === name);
        return column && (column.data_type === 'USER-DEFINED' ? column.udt_name : column.data_type);
      };
      expect({
        name: typeOf('name'),
        state: typeOf('state'),
        data: typeOf('data'),
        start_after: typeOf('start_after'),
        priority: typeOf('priority'),
        created_on: typeOf('created_on'),
        started_on: typeOf('started_on'),
        completed_on: typeOf('completed_on'),
        id: typeOf('id'),
      }).toEqual({
        name: 'text',
        state: 'job_state',
        data: 'jsonb',
        start_after: 'timestamp with time zone',
        priority: 'integer',
        created_on: 'timestamp with time zone',
        started_on: 'timestamp with time zone',
        completed_on: 'timestamp with time zone',
        id: 'uuid',
      });
    });

    it("orders the job states created < retry < active, so `state < 'active'` means waiting", async () => {
      const [{ states }] = await sql<{ states: string[] }>(
        `SELECT enum_range(NULL::${PG_BOSS_SCHEMA}.job_state)::text[] AS states`,
      );
      const at = (state: string) => states.indexOf(state);
      expect(at('created')).toBeGreaterThanOrEqual(0);
      expect(at('created')).toBeLessThan(at('retry'));
      expect(at('retry')).toBeLessThan(at('active'));
      expect(states.filter((s) => at(s) < at('active'))).toEqual(['created', 'retry']);
      expect(at('cancelled')).toBeGreaterThan(at('active'));
    });

    it('ranks ready queues and promotes a queued job as the dispatcher expects', async () => {
      const queue = async (brokerageId: string, job: JobName) => {
        const name = jobKey(brokerageId, job);
        await boss.createQueue(name, syncQueueOptions(name, 60));
        return name;
      };
      const send = (name: string, brokerageId: string, job: JobName) =>
        boss.send(name, { brokerageId, job } satisfies SyncJobData);
      const aPoll = await queue('a', 'crm-changes');
      const bPoll = await queue('b', 'crm-changes');
      const aDrain = await queue('a', 'outbox-drain');
      const all = [aPoll, bPoll, aDrain];
      const none = new Map<string, number>();

      await send(bPoll, 'b', 'crm-changes');
      await send(aPoll, 'a', 'crm-changes');
      // Oldest first...
      expect(await tables.readyQueues(all, none, 10)).toEqual([
        { name: bPoll, brokerageId: 'b' },
        { name: aPoll, brokerageId: 'a' },
      ]);
      // ...unless one holds known work; and the limit holds.
      await tables.promoteQueued(aPoll, 1);
      expect(await tables.readyQueues(all, none, 1)).toEqual([{ name: aPoll, brokerageId: 'a' }]);

      // A queue with a job active is left out, and a brokerage with one active goes last.
      await send(aDrain, 'a', 'outbox-drain');
      const [held] = await boss.fetch<SyncJobData>(aPoll, { batchSize: 1 });
      expect(held).toBeDefined();
      expect(await tables.readyQueues(all, none, 10)).toEqual([
        { name: bPoll, brokerageId: 'b' },
        { name: aDrain, brokerageId: 'a' },
      ]);
      await boss.complete(aPoll, held.id);

      // The times of every sync job, oldest first: the completed one has all three, the waiting
      // ones only when they were ready.
      const times = await tables.syncJobTimes();
      expect(times.map((t) => t.queue)).toEqual([bPoll, aPoll, aDrain]);
      const [b, a, drain] = times;
      expect(a.ready).toBeLessThanOrEqual(a.started!);
      expect(a.started).toBeLessThanOrEqual(a.completed!);
      expect(Math.abs(a.completed! - Date.now())).toBeLessThan(60_000);
      expect([b.started, b.completed, drain.started, drain.completed]).toEqual([null, null, null, null]);
    });

    // An active job of each pair, started `ageSeconds` ago (backdated: no waiting).
    const hold = async (brokerageId: string, job: JobName, ageSeconds: number) => {
      const name = jobKey(brokerageId, job);
      await boss.createQueue(name, syncQueueOptions(name, 900));
      await boss.send(name, { brokerageId, job } satisfies SyncJobData);
      const [held] = await boss.fetch<SyncJobData>(name, { batchSize: 1 });
      await sql(
        `UPDATE ${PG_BOSS_SCHEMA}.job SET started_on = now() - make_interval(secs => ${ageSeconds})
          WHERE id = '${held.id}'`,
      );
      return { name, id: held.id };
    };
    const run = (brokerageId: string, job: JobName, owner: string, status = 'running') =>
      ledger.dataSource.query(
        `INSERT INTO runs (brokerage_id, job, status, started_at, owner)
         VALUES ($1, $2, $3, now() AT TIME ZONE 'UTC', $4)`,
        [brokerageId, job, status, owner],
      );
    // `sessionPid`: the backend pid the worker's liveness session had (null: it recorded none).
    const beatAgo = (owner: string, seconds: number, sessionPid: number | null = null) =>
      ledger.dataSource.query(
        `INSERT INTO worker_heartbeats (owner, beat_at, session_pid)
         VALUES ($1, (now() AT TIME ZONE 'UTC') - make_interval(secs => $2), $3)`,
        [owner, seconds, sessionPid],
      );
    // The backend pid of a session that has ended (PostgreSQL no longer lists it): a killed worker's.
    const endedSessionPid = async (): Promise<number> => {
      const client = new Client({ connectionString: db.url });
      await client.connect();
      const [{ pid }] = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows;
      await client.end();
      await waitFor(
        async () => (await sql(`SELECT 1 FROM pg_stat_activity WHERE pid = ${pid}`)).length === 0,
        { what: `session ${pid} gone from pg_stat_activity` },
      );
      return pid;
    };
    // The backend pid of a session still open (a live worker's).
    const openSessionPid = async (): Promise<number> => {
      const [{ pid }] = await sql<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      return pid;
    };

    it("finds the jobs of dead holders, not a live holder's nor a young one's, and cancels each once", async () => {
      const DEAD_AFTER: WorkerDeath = { silentSeconds: 30, sessionGoneSeconds: 10 };
      // A holder killed inside its run: its run still says running, its beat is old.
      const killed = await hold('dead', 'outbox-drain', 120);
      await beatAgo('w-dead/1#aa', 90);
      await run('dead', 'outbox-drain', 'w-dead/1#aa');
      // A live holder, however long its run has gone on: its beat is fresh.
      const live = await hold('live', 'outbox-drain', 120);
      await ledger.heartbeats.beat('w-live/1#bb');
      await run('live', 'outbox-drain', 'w-dead/1#aa', 'interrupted');
      await run('live', 'outbox-drain', 'w-live/1#bb');
      // Killed between fetch and claim (no run row at all), long enough ago...
      const unclaimed = await hold('unclaimed', 'crm-changes', 120);
      // ...and a job fetched a moment ago, whose run is not recorded yet.
      const young = await hold('young', 'crm-changes', 5);
      // A dead holder's job of a queue this worker does not work is left to the workers that do
      // (not in `worked`, so not found below).
      const elsewhere = await hold('elsewhere', 'outbox-drain', 120);
      await run('elsewhere', 'outbox-drain', 'w-dead/1#aa');

      const worked = [killed.name, live.name, unclaimed.name, young.name];
      const found = await tables.abandonedJobs(worked, DEAD_AFTER);
      expect(found).toEqual(
        expect.arrayContaining([
          {
            id: killed.id,
            queue: killed.name,
            brokerageId: 'dead',
            job: 'outbox-drain',
            owner: 'w-dead/1#aa',
            sessionGone: false,
          },
          {
            id: unclaimed.id,
            queue: unclaimed.name,
            brokerageId: 'unclaimed',
            job: 'crm-changes',
            owner: null,
            sessionGone: false,
          },
        ]),
      );
      expect(found).toHaveLength(2);
      expect(await tables.abandonedJobs([elsewhere.name], DEAD_AFTER)).toEqual([
        {
          id: elsewhere.id,
          queue: elsewhere.name,
          brokerageId: 'elsewhere',
          job: 'outbox-drain',
          owner: 'w-dead/1#aa',
          sessionGone: false,
        },
      ]);

      // Two workers found it: one cancel takes it, the other finds it gone; the slow holder's
      // complete then changes nothing.
      expect(await tables.cancelActive(killed.name, killed.id)).toBe(true);
      expect(await tables.cancelActive(killed.name, killed.id)).toBe(false);
      await boss.complete(killed.name, killed.id);
      expect((await boss.getJobById(killed.name, killed.id))?.state).toBe('cancelled');
      // A job no longer active is not taken over; the queue takes a new one at once.
      expect(await tables.abandonedJobs(worked, DEAD_AFTER)).toEqual([
        {
          id: unclaimed.id,
          queue: unclaimed.name,
          brokerageId: 'unclaimed',
          job: 'crm-changes',
          owner: null,
          sessionGone: false,
        },
      ]);
      expect(await boss.send(killed.name, { brokerageId: 'dead', job: 'outbox-drain' })).not.toBeNull();
      expect(await tables.readyQueues([killed.name], new Map(), 10)).toEqual([
        { name: killed.name, brokerageId: 'dead' },
      ]);
    });

    it('finds a holder whose database session is gone once it missed two beats, before its silence says so', async () => {
      const death: WorkerDeath = { silentSeconds: 30, sessionGoneSeconds: 10 };
      const gone = await endedSessionPid();
      const open = await openSessionPid();
      // Killed inside its run 15 s ago: its session ended with it, its beat not yet 30 s old.
      const crashed = await hold('crashed', 'outbox-drain', 20);
      await beatAgo('w-crashed/1#aa', 15, gone);
      await run('crashed', 'outbox-drain', 'w-crashed/1#aa');
      // Alive but late with its beats (a stalled event loop): its session is still open.
      const stalled = await hold('stalled', 'outbox-drain', 20);
      await beatAgo('w-stalled/1#bb', 15, open);
      await run('stalled', 'outbox-drain', 'w-stalled/1#bb');
      // Records no session (an older worker): judged by its silence alone.
      const older = await hold('older', 'outbox-drain', 20);
      await beatAgo('w-older/1#cc', 15, null);
      await run('older', 'outbox-drain', 'w-older/1#cc');
      // Its session gone, but it beat 5 s ago: a live worker whose connection broke opens another at
      // its next beat, so one missed beat is not enough.
      const reconnecting = await hold('reconnecting', 'outbox-drain', 20);
      await beatAgo('w-reconnecting/1#dd', 5, gone);
      await run('reconnecting', 'outbox-drain', 'w-reconnecting/1#dd');
      // No run recorded, fetched 20 s ago: a live worker may still be about to claim it, so only
      // silence (30 s) finds it.
      const unclaimed = await hold('unclaimed-young', 'crm-changes', 20);
      // Its dead holder's job was taken over 4 s ago and fetched again by a live worker not yet
      // claimed: too young to judge.
      const refetched = await hold('refetched', 'inbox-drain', 4);
      await beatAgo('w-refetched/1#ee', 15, gone);
      await run('refetched', 'inbox-drain', 'w-refetched/1#ee');

      const worked = [crashed, stalled, older, reconnecting, unclaimed, refetched].map((h) => h.name);
      expect(await tables.abandonedJobs(worked, death)).toEqual([
        {
          id: crashed.id,
          queue: crashed.name,
          brokerageId: 'crashed',
          job: 'outbox-drain',
          owner: 'w-crashed/1#aa',
          sessionGone: true,
        },
      ]);
      // Once silence alone says dead (12 s here), so are the late and the older worker, and the
      // unclaimed job; the crashed one is then silent as well.
      const later: WorkerDeath = { silentSeconds: 12, sessionGoneSeconds: 10 };
      const found = await tables.abandonedJobs(worked, later);
      expect(found.map((j) => [j.brokerageId, j.sessionGone])).toEqual([
        ['crashed', false],
        ['stalled', false],
        ['older', false],
        ['unclaimed-young', false],
      ]);
    });
  },
);
