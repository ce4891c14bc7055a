import { formatBuyerReport, runBuyerSoak } from '../../../soak/buyer-soak';
import { expectBuiltDaemon } from '../../support/worker-process';

// The CI-sized buyer soak (docs/operations.md, "Buyer soak"): a partner brokerage's daemon from dist/
// (npm run build first) mirrors a marketplace whose listings come, go and come back, while a buyer
// agent flags contacts as leads; SIGKILLed 12 times at moments drawn from a fixed seed, then settled
// and checked from outside. The full run is `npm run soak:buyer`.
const SEED = 20261201;
const KILLS = 12;

describe('the buyer side, killed 12 times with SIGKILL while listings change and an agent asks for leads', () => {
  it(
    'shows each listing once as the service lists it, and sends each lead at most once, shown or told on its contact',
    async () => {
      expectBuiltDaemon();
      const result = await runBuyerSoak({ seed: SEED, kills: KILLS, settleTimeoutMs: 120_000 });
      if (result.violations.length > 0 || !result.settled) console.log(formatBuyerReport(result));
      expect(result.kills).toBe(KILLS);
      expect(result.violations.map((v) => `${v.kind} ${v.record}: ${v.detail}`)).toEqual([]);
      expect(result.settled).toBe(true);
      expect(result.marketChanges).toBeGreaterThan(KILLS); // the market moved under the kills
      expect(result.figures.leadsShown).toBeGreaterThan(0); // leads went and were shown
      expect(result.summary).toMatch(/lost 0, duplicate 0, wrong state 0$/);
    },
    8 * 60_000,
  );
});
