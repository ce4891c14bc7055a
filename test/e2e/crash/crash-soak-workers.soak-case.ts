import { CI_CLOCK_MOMENTS_AHEAD_MS, runCrashSoak } from '../../../soak/crash-soak';
import { expectBuiltDaemon } from '../../support/worker-process';
import { expectCleanCrashSoak } from './soak-checks';

// The crash soak's postgres-workers shape, CI-sized (docs/operations.md, "Crash soak"): three
// daemons from dist/ on one PostgreSQL ledger (a database of its own on jest's server), 12 SIGKILLs
// of seeded random workers (sometimes two at once), each restarted, while the agent works in
// HubSpot; then settled and checked. The full run is `SOAK_SHAPE=postgres-workers npm run soak:crash`.
// Half the buyers' offers run on near clocks (soak/soak-clocks.ts): the offer clocks' tasks, the
// broker's escalation and Expired happen under the kills, and exactly one task per key is checked.
const SEED = 20261124;
const KILLS = 12;

describe('three workers on PostgreSQL, killed 12 times with SIGKILL while an agent works', () => {
  it(
    'loses nothing, duplicates nothing, undoes no decision, shows no offer in the wrong state, and makes each offer clock task once',
    async () => {
      expectBuiltDaemon();
      const result = await runCrashSoak({
        shape: 'postgres-workers',
        seed: SEED,
        kills: KILLS,
        clockMomentsAheadMs: CI_CLOCK_MOMENTS_AHEAD_MS,
      });
      // Whether a buyer answers a counter within a run this short depends on the machine's pace (since
      // half the offers run on near clocks, often none does); the 30-kill HubSpot soak requires one.
      expectCleanCrashSoak(result, KILLS);
    },
    8 * 60_000,
  );
});
