import { CI_CLOCK_MOMENTS_AHEAD_MS, CI_OPERATOR, runCrashSoak } from '../../../soak/crash-soak';
import { expectBuiltDaemon } from '../../support/worker-process';
import { expectCleanCrashSoak } from './soak-checks';

// The CI-sized crash soak (docs/operations.md, "Crash soak"): the simulators and the
// daemon from dist/ (npm run build first) as child processes, 30 SIGKILLs at moments drawn from a
// fixed seed while a scripted agent works in the CRM and an operator runs the same jobs with
// `cli sync` in processes of its own (some SIGKILLed too), then settled and checked. The full run is
// `npm run soak:crash`.
// Half the buyers' offers run on near clocks (soak/soak-clocks.ts): the offer clocks' tasks, the
// broker's escalation and Expired happen under the kills, and exactly one task per key is checked.
const SEED = 20261122;
const KILLS = 30;

describe('the whole daemon, killed 30 times with SIGKILL while an agent and an operator work', () => {
  it(
    'loses nothing, duplicates nothing, undoes no decision, shows no offer in the wrong state, makes each offer clock task once, and no CLI run fails',
    async () => {
      expectBuiltDaemon();
      const result = await runCrashSoak({
        seed: SEED,
        kills: KILLS,
        settleTimeoutMs: 180_000,
        clockMomentsAheadMs: CI_CLOCK_MOMENTS_AHEAD_MS,
        operator: CI_OPERATOR,
        operatorRuns: true,
      });
      expectCleanCrashSoak(result, KILLS);
      expect(result.counterAnswers).toBeGreaterThan(0); // the buyers answered counters: the counter path ran
      expect(result.cliRuns).toBeGreaterThan(0);
      expect(result.notes.filter((n) => n.startsWith('CLI sync'))).toEqual([]);
    },
    12 * 60_000,
  );
});
