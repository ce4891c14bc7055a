import { pause } from './soak-http';
import { holdsRun } from './soak-ledger';
import { SOAK_BROKERAGE, startCli, type CliProcess } from './soak-processes';
import { SoakRandom } from './soak-random';

// The operator actor: `cli sync --brokerage soak --job <job>` (a real run, a process of its own on the
// same ledger file) at seeded moments while the daemon lives, so the same job of the same brokerage
// runs in two processes at once. Sometimes two CLI runs start together; sometimes one is SIGKILLed
// mid-run. The marketplace job is left out: the mirror is not under test (SOAK_SCHEDULES).
export const OPERATOR_JOBS = ['crm-changes', 'offers-reconcile', 'outbox-drain', 'inbox-drain'] as const;

// What one CLI run came to. `succeeded`, `skipped` (a pause) and `killed` (by the soak) are expected;
// `failed` (the run failed), `interrupted` (nobody aborted it) and `error` (no JSON outcome: a crash,
// an uncaught error) are findings, printed as notes with the run's output.
export type CliRunStatus = 'succeeded' | 'skipped' | 'killed' | 'failed' | 'interrupted' | 'error';
const EXPECTED: readonly CliRunStatus[] = ['succeeded', 'skipped', 'killed'];

export interface OperatorOptions {
  // Pacing between one round of CLI runs and the next.
  minGapMs: number;
  maxGapMs: number;
  pairChance: number; // two CLI runs at once
  killChance: number; // a CLI run SIGKILLed 0..60 ms after its run is recorded in the ledger
}

export const DEFAULT_OPERATOR: OperatorOptions = {
  minGapMs: 600,
  maxGapMs: 3000,
  pairChance: 0.25,
  killChance: 0.2,
};

export class SoakOperator {
  private readonly counts = new Map<CliRunStatus, number>();
  private readonly byJob = new Map<string, number>();
  readonly findings: string[] = [];
  private stopped = false;
  private roundsLeft?: number;
  private finalKillChance?: number;
  private loop?: Promise<void>;

  constructor(
    private readonly env: NodeJS.ProcessEnv,
    private readonly random: SoakRandom,
    private readonly daemonRunning: () => boolean,
    private readonly options: OperatorOptions = DEFAULT_OPERATOR,
  ) {}

  start(): void {
    this.loop ??= (async () => {
      while (!this.stopped) {
        await pause(this.random.between(this.options.minGapMs, this.options.maxGapMs));
        if (this.stopped || !this.daemonRunning()) continue;
        const runs = this.random.chance(this.options.pairChance) ? 2 : 1;
        const killChance = this.finalKillChance ?? this.options.killChance;
        const plans = Array.from({ length: runs }, () => ({
          job: this.random.pick(OPERATOR_JOBS),
          killAfterMs: this.random.chance(killChance) ? this.random.between(0, 60) : undefined,
        }));
        await Promise.all(plans.map((plan) => this.runOne(plan.job, plan.killAfterMs)));
        if (this.roundsLeft !== undefined && --this.roundsLeft <= 0) this.stopped = true;
      }
    })();
  }

  // A few last rounds beside a daemon that is not killed again, with more CLI runs SIGKILLed: what
  // they leave half-done must be recovered by the living daemon (the next run of the same job), not
  // by a restart.
  finishAfter(rounds: number, killChance: number): void {
    this.roundsLeft = rounds;
    this.finalKillChance = killChance;
  }

  get finished(): boolean {
    return this.stopped || this.loop === undefined;
  }

  // Waits for the CLI runs under way to end; starts no more.
  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop;
  }

  get runs(): number {
    return [...this.counts.values()].reduce((a, b) => a + b, 0);
  }

  get unexpected(): number {
    return [...this.counts].filter(([s]) => !EXPECTED.includes(s)).reduce((a, [, n]) => a + n, 0);
  }

  summary(): string {
    const order: CliRunStatus[] = ['succeeded', 'skipped', 'killed', 'failed', 'interrupted', 'error'];
    const statuses = order
      .filter((s) => this.counts.has(s))
      .map((s) => `${this.counts.get(s)} ${s}`)
      .join(', ');
    const jobs = [...this.byJob].map(([j, n]) => `${n} ${j}`).join(', ');
    return `operator: ${this.runs} CLI sync runs (${statuses || 'none'}; ${jobs || 'no job'})`;
  }

  private async runOne(job: string, killAfterMs: number | undefined): Promise<void> {
    const cli = startCli(['sync', '--brokerage', SOAK_BROKERAGE, '--job', job, '--json'], this.env);
    if (killAfterMs !== undefined) void this.killMidRun(cli, killAfterMs);
    const exit = await cli.done;
    const status = classify(exit, killAfterMs !== undefined);
    this.counts.set(status, (this.counts.get(status) ?? 0) + 1);
    this.byJob.set(job, (this.byJob.get(job) ?? 0) + 1);
    // The run's error leads the finding: a CI log may keep only its first lines.
    if (!EXPECTED.includes(status) || hasStackTrace(exit.stderr))
      this.findings.push(
        `CLI sync --job ${job} ${status} (exit ${exit.code ?? exit.signal})${errorOf(exit.stdout)}:\n` +
          `${tail(exit.stdout)}\n${tail(exit.stderr)}`,
      );
  }

  // Killed while its run is under way, not while Nest boots: once the ledger shows the run it holds
  // (polled, with a deadline), after `afterMs`. A run over by then is not killed.
  private async killMidRun(cli: CliProcess, afterMs: number): Promise<void> {
    const deadline = Date.now() + 20_000;
    while (!cli.exited() && Date.now() < deadline) {
      let holds = false;
      try {
        holds = holdsRun(this.env.LEDGER_PATH!, cli.pid);
      } catch {
        // The ledger is being created or migrated: look again.
      }
      if (holds) {
        await pause(afterMs);
        cli.kill();
        return;
      }
      // Most runs last tens of milliseconds: look often.
      await pause(10);
    }
  }
}

function classify(
  exit: { code: number | null; signal: NodeJS.Signals | null; stdout: string },
  killedBySoak: boolean,
): CliRunStatus {
  if (exit.signal === 'SIGKILL' && killedBySoak) return 'killed';
  const outcome = outcomeOf(exit.stdout);
  if (!outcome) return 'error';
  switch (outcome.status) {
    case 'succeeded':
      return exit.code === 0 ? 'succeeded' : 'error';
    case 'skipped':
    case 'failed':
    case 'interrupted':
      return outcome.status;
    default:
      return 'error';
  }
}

// The JSON outcome a CLI run printed, or undefined (a crash, an uncaught error).
function outcomeOf(stdout: string): { status?: unknown; error?: unknown } | undefined {
  try {
    const outcome = JSON.parse(stdout) as unknown;
    return typeof outcome === 'object' && outcome !== null ? outcome : undefined;
  } catch {
    return undefined;
  }
}

// The error a run's JSON outcome names, as ": <error>", or nothing.
export function errorOf(stdout: string): string {
  const error = outcomeOf(stdout)?.error;
  return typeof error === 'string' && error !== '' ? `: ${error}` : '';
}

// An uncaught error, or one logged with its stack: "    at fn (file:line:col)".
function hasStackTrace(stderr: string): boolean {
  return /\n\s+at .+:\d+:\d+\)?/.test(stderr) || /\\n\s+at .+:\d+:\d+\)?/.test(stderr);
}

function tail(text: string, lines = 15): string {
  return text.trimEnd().split('\n').slice(-lines).join('\n');
}
