import { CI_CLOCK_MOMENTS_AHEAD_MS, CI_OPERATOR, runCrashSoak } from '../../../soak/crash-soak';
import { expectBuiltDaemon } from '../../support/worker-process';
import { expectCleanCrashSoak } from './soak-checks';

// The crash soak's sqlite-fub shape, CI-sized (docs/operations.md, "Crash soak"): the daemon on
// SQLite for a brokerage on the Follow Up Boss emulator, the agent working through FUB's public /v1
// API, 12 SIGKILLs at moments drawn from a fixed seed beside the operator's CLI runs, then settled and
// checked. The full run is `SOAK_SHAPE=sqlite-fub npm run soak:crash`.
// Half the buyers' offers run on near clocks (soak/soak-clocks.ts): the offer clocks' tasks, the
// broker's escalation and Expired happen under the kills, and exactly one task per key is checked.
const SEED = 20261124;
const KILLS = 12;

describe('the daemon on Follow Up Boss, killed 12 times with SIGKILL while an agent and an operator work', () => {
  it(
    'loses nothing, duplicates nothing, undoes no decision, shows no offer in the wrong state, and makes each offer clock task once',
    async () => {
      expectBuiltDaemon();
      const result = await runCrashSoak({
        shape: 'sqlite-fub',
        seed: SEED,
        kills: KILLS,
        clockMomentsAheadMs: CI_CLOCK_MOMENTS_AHEAD_MS,
        operator: CI_OPERATOR,
      });
      // Whether a buyer answers a counter within a run this short depends on the machine's pace (since
      // half the offers run on near clocks, often none does); the 30-kill HubSpot soak requires one.
      expectCleanCrashSoak(result, KILLS);
    },
    8 * 60_000,
  );
});
