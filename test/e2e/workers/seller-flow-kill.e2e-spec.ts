import { Client } from 'pg';
import { OFFER } from '../../../src/sync/offers/offer-record.properties';
import { CREATE_OFFER_REQUEST } from '../../../src/sync/seller-requests/create-offer-request.executor';
import { createTestPostgresDatabase, type TestPostgresDatabase } from '../../support/postgres-database';
import { waitFor } from '../../support/wait-for';
import { expectBuiltDaemon, openRun } from '../../support/worker-process';
import { WorkerWorld } from '../../support/worker-world';

jest.setTimeout(240_000);

const DEALS_PER_BROKERAGE = 3;
// Far longer than the test: a takeover after the lease would miss every deadline below. The dead
// worker is noticed by its database session gone with it and two missed heartbeats (2 x 1 s), well
// before its silence alone would say so (6 x 1 s).
const LEASE_SECONDS = 600;
const HEARTBEAT_SECONDS = 1;
// From the kill to the killed run marked interrupted by its successor: 2 missed beats, the next
// beat of a survivor, a fetch, on a busy machine. A tenth of the lease.
const TAKEOVER_DEADLINE_MS = 60_000;

interface RunRow {
  id: number;
  brokerage_id: string;
  job: string;
  status: string;
  started_at: Date;
  finished_at: Date | null;
}

async function sql<T extends object>(url: string, text: string): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text)).rows;
  } finally {
    await client.end();
  }
}

// Three daemons from dist/ on one PostgreSQL ledger, three brokerages with their own Cash Offer
// service and CRM. The worker inside a brokerage's create call (the service stored the request and
// holds its answer) is killed with SIGKILL; another worker takes the drain over once the dead one's
// database session is gone and it has missed two heartbeats, long before its pg-boss lease runs out.
describe('the seller flow on three workers, one killed mid-run', () => {
  let db: TestPostgresDatabase;
  let world: WorkerWorld;
  beforeAll(async () => {
    expectBuiltDaemon();
    db = await createTestPostgresDatabase('flow_workers');
    world = await WorkerWorld.start({
      brokerages: 3,
      workers: 3,
      ledgerUrl: db.url,
      leaseSeconds: LEASE_SECONDS,
      heartbeatSeconds: HEARTBEAT_SECONDS,
      // Longer than the kill takes: the victim is still waiting for the answer when it dies.
      cashOfferTimeoutMs: 30_000,
    });
  });
  afterAll(async () => {
    await world?.close();
    await db?.drop();
  });

  it('sends every deal once and writes every offer once', async () => {
    const deals = new Map<string, string[]>();
    for (const b of world.brokerages) deals.set(b.id, await world.seedDeals(b, DEALS_PER_BROKERAGE));
    const victimBrokerage = world.brokerages[0];
    await victimBrokerage.control.faults({ match: 'POST /offer-requests', hangAfterCommitMs: 120_000 });

    const workers = await world.startWorkers();
    // The kill waits for the other brokerages' creates to be done: one caught between its `sending`
    // mark and the wire would rightly stay unknown for the brokerage's unknown-outcome window (an
    // unapproved request is not listed, so its absence proves nothing), past this test's deadlines.
    // The victim's own drain is held inside its first create until the kill.
    const victim = await waitFor(
      async () => {
        if ((await victimBrokerage.control.requests()).length === 0) return undefined;
        for (const b of world.brokerages.filter((o) => o !== victimBrokerage))
          if ((await b.control.requests()).length < DEALS_PER_BROKERAGE) return undefined;
        const othersOpen = await sql<{ n: string }>(
          db.url,
          `SELECT COUNT(*) AS n FROM outbox_commands WHERE operation = '${CREATE_OFFER_REQUEST}'
             AND brokerage_id <> '${victimBrokerage.id}' AND state <> 'done'`,
        );
        if (Number(othersOpen[0].n) > 0) return undefined;
        return workers.find((w) => openRun(w, victimBrokerage.id, 'outbox-drain') !== undefined);
      },
      { what: 'a worker inside the create call', timeoutMs: 60_000, intervalMs: 100 },
    );
    const victimRunId = openRun(victim, victimBrokerage.id, 'outbox-drain')!;
    expect((await victim.kill('SIGKILL')).signal).toBe('SIGKILL');
    await victimBrokerage.control.clearFaults();
    const survivors = workers.filter((w) => w !== victim);

    // Noticed by its silence, well inside the lease: a survivor cancels the dead worker's job, says
    // so naming the pair and the dead owner (host/pid#start), and the next holder closes its run.
    await waitFor(
      async () => {
        const [run] = await sql<RunRow>(db.url, `SELECT * FROM runs WHERE id = ${victimRunId}`);
        return run.status === 'interrupted';
      },
      { what: 'the killed run taken over', timeoutMs: TAKEOVER_DEADLINE_MS, intervalMs: 200 },
    );
    const takeovers = survivors
      .flatMap((w) => w.logs())
      .map((line) => String(line.msg))
      .filter((msg) => msg.startsWith(`taking over outbox-drain for ${victimBrokerage.id} from `));
    expect(takeovers).toHaveLength(1);
    expect(takeovers[0]).toMatch(
      new RegExp(
        `from [^ ]+/${victim.child.pid}#[0-9a-f]{8}: its database session is gone and no heartbeat for 2s`,
      ),
    );

    // Every deal of every brokerage reaches the service. The service approves them, which lists
    // them: the dead worker's lost answer is then found by whoever took its drain over.
    await waitFor(
      async () => {
        for (const b of world.brokerages) {
          const sent = new Set((await b.control.requests()).map((r) => r.offer_request_external_id));
          if (!deals.get(b.id)!.every((d) => sent.has(d))) return false;
        }
        return true;
      },
      { what: 'every deal sent', timeoutMs: 120_000, intervalMs: 100 },
    ).catch(async (error: unknown) => {
      // What each brokerage's service has not received, and where the ledger holds it.
      const missing: string[] = [];
      for (const b of world.brokerages) {
        const sent = new Set((await b.control.requests()).map((r) => r.offer_request_external_id));
        missing.push(
          ...deals
            .get(b.id)!
            .filter((d) => !sent.has(d))
            .map((d) => `${b.id}:${d}`),
        );
      }
      const outbox = await sql(
        db.url,
        'SELECT id, brokerage_id, operation, state, record_ref, last_error FROM outbox_commands',
      );
      const running = await sql(
        db.url,
        "SELECT id, brokerage_id, job, owner, started_at FROM runs WHERE status = 'running'",
      );
      const jobs = await sql(
        db.url,
        "SELECT name, state, singleton_key, started_on FROM pgboss.job WHERE state IN ('active', 'created', 'retry')",
      );
      throw new Error(
        `${String(error)}\nnot received: ${missing.join(', ')}\noutbox: ${JSON.stringify(outbox)}` +
          `\nruns running: ${JSON.stringify(running)}\npg-boss jobs: ${JSON.stringify(jobs)}`,
      );
    });
    for (const b of world.brokerages) {
      for (const request of await b.control.requests()) await b.control.approve(request.offer_request_id);
    }
    await waitFor(
      async () => {
        const open = await sql<{ n: string }>(
          db.url,
          "SELECT COUNT(*) AS n FROM outbox_commands WHERE state IN ('pending', 'sending', 'failed', 'unknown')",
        );
        return Number(open[0].n) === 0;
      },
      { what: 'every outbox settled', timeoutMs: 120_000, intervalMs: 100 },
    ).catch(async (error: unknown) => {
      // What is left, for whoever reads the failure.
      const left = await sql(
        db.url,
        "SELECT id, brokerage_id, operation, state, last_error FROM outbox_commands WHERE state <> 'done'",
      );
      throw new Error(`${String(error)}\noutbox: ${JSON.stringify(left)}`);
    });
    for (const b of world.brokerages) {
      const requests = await b.control.requests();
      const externalIds = requests.map((r) => r.offer_request_external_id).sort();
      // Exactly one offer request per deal: the lost answer was reconciled, not re-sent.
      expect(externalIds).toEqual([...deals.get(b.id)!].sort());
    }

    // Offers on every request: each one becomes exactly one CRM record, whichever worker took the
    // webhook (brokerage i's go to worker i) or, for the dead worker's brokerage, the reconcile poll.
    const offers: { brokerage: (typeof world.brokerages)[number]; offerId: number }[] = [];
    for (const b of world.brokerages) {
      for (const request of await b.control.requests()) {
        const offer = await b.control.makeOffer(request.offer_request_id);
        offers.push({ brokerage: b, offerId: offer.offer_id });
      }
    }
    await waitFor(
      () =>
        offers.every(
          (o) => o.brokerage.hubspot.state.findAllByProperty('deals', OFFER.id, String(o.offerId)).length > 0,
        ),
      { what: 'a CRM record for every offer', timeoutMs: 120_000, intervalMs: 100 },
    );
    for (const o of offers) {
      expect(o.brokerage.hubspot.state.findAllByProperty('deals', OFFER.id, String(o.offerId))).toHaveLength(
        1,
      );
    }

    // From the run table: the killed run was closed by the takeover, and no (brokerage, job) ever
    // had two runs going at once.
    const runs = await sql<RunRow>(db.url, 'SELECT * FROM runs ORDER BY started_at, id');
    expect(runs.find((r) => r.id === victimRunId)?.status).toBe('interrupted');
    const last = new Map<string, RunRow>();
    for (const run of runs) {
      const key = `${run.brokerage_id}:${run.job}`;
      const previous = last.get(key);
      if (previous) {
        const overlap = previous.finished_at === null || previous.finished_at > run.started_at;
        expect(overlap ? `${key}: run ${run.id} started while run ${previous.id} was running` : 'ok').toBe(
          'ok',
        );
      }
      last.set(key, run);
    }
    // Which survivor takes which job is pg-boss's choice: one fast worker may take them all (how
    // evenly work spreads is what bench:scale measures, not a correctness property).
    for (const w of survivors) expect((await w.kill('SIGTERM')).code).toBe(0);
  });
});
