import { join } from 'node:path';
import { freePort } from '../test/support/free-port';
import { pause } from './soak-http';
import { DaemonProcess, ROOT } from './soak-processes';
import type { SoakRandom } from './soak-random';

// The `postgres-workers` shape: three daemons from dist/ on one PostgreSQL ledger (docs/operations.md,
// "Running on PostgreSQL"), each with its own webhook and admin port kept across restarts. Seeded
// random workers are SIGKILLed, sometimes two at once, and started again.

export const WORKER_COUNT = 3;
// The workers' heartbeat: a killed worker's jobs are taken over once its database session is gone
// and it missed 2 beats (4 s), or a job with no run yet after 6 (12 s), with the lease at its
// default (15 minutes) as in production: the soak checks the takeover a deployment relies on, not
// a lease shortened to stand in for it.
export const SOAK_HEARTBEAT_SECONDS = 2;

export interface SoakPostgres {
  url: string;
  stop(): Promise<void>;
}

// A database of its own: on jest's shared server when there is one (TEST_POSTGRES_URL), else on an
// embedded server started for this run (test/support/embedded-postgres.js, real binaries).
export async function startSoakPostgres(): Promise<SoakPostgres> {
  const { Client } = await import('pg');
  const admin = async (serverUrl: string, sql: string): Promise<void> => {
    const client = new Client({ connectionString: serverUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  let serverUrl = process.env.TEST_POSTGRES_URL || '';
  let stopServer = async (): Promise<void> => undefined;
  if (!serverUrl) {
    const helper = (await import(join(ROOT, 'test', 'support', 'embedded-postgres.js'))) as {
      startEmbeddedPostgres(): Promise<{ url: string; stop(): Promise<void> }>;
    };
    const server = await helper.startEmbeddedPostgres();
    serverUrl = server.url;
    stopServer = () => server.stop();
  }
  const name = `soak_${process.pid}_${Date.now()}`;
  await admin(serverUrl, `CREATE DATABASE "${name}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    stop: async () => {
      await admin(serverUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await stopServer();
    },
  };
}

export class SoakWorkers {
  readonly workers: DaemonProcess[];
  processKills = 0;

  private constructor(workers: DaemonProcess[]) {
    this.workers = workers;
  }

  // Worker 0 listens on the webhook port the brokerage file registers with the service: while it is
  // down, the service's deliveries fail and polling finds what they carried.
  static async create(env: NodeJS.ProcessEnv, dir: string): Promise<SoakWorkers> {
    const workers: DaemonProcess[] = [];
    for (let i = 0; i < WORKER_COUNT; i++) {
      const ports =
        i === 0
          ? { WEBHOOK_PORT: env.WEBHOOK_PORT, ADMIN_PORT: env.ADMIN_PORT }
          : { WEBHOOK_PORT: String(await freePort()), ADMIN_PORT: String(await freePort()) };
      workers.push(new DaemonProcess({ ...env, ...ports }, join(dir, `worker-${i + 1}.log`)));
    }
    return new SoakWorkers(workers);
  }

  get running(): boolean {
    return this.workers.some((w) => w.running);
  }

  get starts(): number {
    return this.workers.reduce((n, w) => n + w.starts, 0);
  }

  startAll(): void {
    for (const w of this.workers) if (!w.running) w.start();
  }

  async waitAllLive(timeoutMs: number): Promise<void> {
    await Promise.all(this.workers.map((w) => w.waitLive(timeoutMs)));
  }

  // One kill: one worker (two, a quarter of the time) SIGKILLed and started again at once; half the
  // time the soak waits until they answer again, else the next kill may meet them starting.
  async killRound(random: SoakRandom, notes: string[], timeoutMs: number, left: number): Promise<number> {
    const victims =
      random.chance(0.25) && left >= 2
        ? pickTwo(random, this.workers.length).map((i) => this.workers[i])
        : [random.pick(this.workers)];
    for (const v of victims) {
      if (v.exitedEarly()) notes.push(`worker exited by itself before kill:\n${v.tail()}`);
      await v.kill();
      this.processKills++;
    }
    for (const v of victims) v.start();
    if (random.chance(0.5)) await Promise.all(victims.map((v) => v.waitLive(timeoutMs)));
    else await pause(random.between(50, 800));
    return victims.length;
  }

  // The soak's kills: all started, then rounds after a drawn running time each (`runMs`) until
  // `total` processes were killed; `afterRound` gets the count so far.
  async killUntil(
    total: number,
    random: SoakRandom,
    runMs: { min: number; max: number },
    notes: string[],
    afterRound: (kills: number) => void,
    beforeRound: () => void = () => undefined,
  ): Promise<void> {
    this.startAll();
    await this.waitAllLive(60_000);
    let kills = 0;
    while (kills < total) {
      beforeRound();
      await pause(random.between(runMs.min, runMs.max));
      kills += await this.killRound(random, notes, 60_000, total - kills);
      afterRound(kills);
    }
  }

  // After the kills: every worker running and live for the settle; one that exited by itself is a note.
  async startForSettle(notes: string[]): Promise<void> {
    this.startAll();
    await this.waitAllLive(60_000);
    notes.push(...this.exitedEarly().map((tail) => `a worker exited by itself:\n${tail}`));
  }

  async stopAll(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.stop()));
  }

  exitedEarly(): string[] {
    return this.workers.filter((w) => w.exitedEarly()).map((w) => w.tail());
  }
}

function pickTwo(random: SoakRandom, n: number): [number, number] {
  const a = random.int(0, n - 1);
  let b = random.int(0, n - 2);
  if (b >= a) b++;
  return [a, b];
}
