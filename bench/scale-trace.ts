import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { Client } from 'pg';
import { PgBossTables } from '../src/scheduler/pg-boss/pg-boss.tables';

// bench:scale's optional trace (BENCH_TRACE=<file prefix>): where a round's time went. Per slot
// timeline from the runs table, the wait between a job being ready in pg-boss and a worker starting
// it, the gap between a run's end and the next run on the same worker, and the CPU the workers, the
// bench process (simulators) and PostgreSQL's backends of the round's database used.

const TICKS_PER_SECOND = 100;

// utime + stime of a process, in seconds (Linux /proc).
export function cpuSecondsOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

// CPU of the PostgreSQL backends serving `database` (their command line names it).
export function postgresCpuSeconds(database: string): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmd = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (cmd.startsWith('postgres:') && cmd.includes(` ${database} `)) total += cpuSecondsOf(Number(entry));
    } catch {
      // gone
    }
  }
  return total;
}

interface RunRow {
  brokerage_id: string;
  job: string;
  started: number;
  finished: number;
  created_count: number;
  updated_count: number;
}

export async function traceRound(
  client: Client,
  file: string,
  roundStart: number,
  cpu: Record<string, number>,
): Promise<string> {
  const { rows: runs } = await client.query<RunRow>(
    `SELECT brokerage_id, job, created_count, updated_count,
            EXTRACT(EPOCH FROM started_at) * 1000 AS started, EXTRACT(EPOCH FROM finished_at) * 1000 AS finished
       FROM runs WHERE finished_at IS NOT NULL ORDER BY started_at`,
  );
  // pg-boss's table is read only through the scheduler's one module that knows it.
  const jobs = await new PgBossTables({
    executeSql: (text, values) => client.query(text, values),
  }).syncJobTimes();
  const r = runs.map((x) => ({
    ...x,
    started: Number(x.started) - roundStart,
    finished: Number(x.finished) - roundStart,
  }));
  const j = jobs.map((x) => ({
    name: x.queue,
    created: x.ready - roundStart,
    started: x.started === null ? null : x.started - roundStart,
    completed: x.completed === null ? null : x.completed - roundStart,
  }));
  const runSeconds = r.reduce((n, x) => n + (x.finished - x.started), 0) / 1000;
  const waits = j
    .filter((x) => x.started !== null && x.started > 0)
    .map((x) => x.started! - Math.max(0, x.created));
  const byJob = new Map<string, { n: number; s: number }>();
  for (const x of r) {
    const k = x.job;
    const v = byJob.get(k) ?? { n: 0, s: 0 };
    v.n += 1;
    v.s += (x.finished - x.started) / 1000;
    byJob.set(k, v);
  }
  writeFileSync(file, JSON.stringify({ runs: r, jobs: j, cpu }, null, 1));
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
  return (
    `runs ${r.length} (${[...byJob].map(([k, v]) => `${k} ${v.n}x ${v.s.toFixed(1)} s`).join(', ')}), ` +
    `run time ${runSeconds.toFixed(1)} s; job ready->started mean ${mean(waits).toFixed(0)} ms max ${Math.max(0, ...waits).toFixed(0)} ms; ` +
    `CPU ${Object.entries(cpu)
      .map(([k, v]) => `${k} ${v.toFixed(1)} s`)
      .join(', ')}; trace ${file}`
  );
}
