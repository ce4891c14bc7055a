import { type CrashSoakResult, formatReport } from '../../../soak/crash-soak';

// A crash soak's clean result, in any shape: every kill made, no violation, settled, no CLI run that
// failed, the offer clocks' tasks made (soak-clocks.ts), and the summary the full run prints.
// Whether an offer also runs out undecided within a run this short depends on the machine's pace
// (none did on an idle one); every one that does must show Expired.
export function expectCleanCrashSoak(result: CrashSoakResult, kills: number): void {
  if (result.violations.length > 0 || !result.settled || result.cliUnexpected > 0 || result.tasks.tasks === 0)
    console.log(formatReport(result));
  expect(result.kills).toBe(kills);
  expect(result.violations.map((v) => `${v.kind} ${v.record}: ${v.detail}`)).toEqual([]);
  expect(result.settled).toBe(true);
  expect(result.cliUnexpected).toBe(0);
  expect(result.tasks.tasks).toBeGreaterThan(0);
  const expired = result.tasks.expiredUndecided;
  expect(result.summary).toBe(
    `kills ${kills}, deals ${result.deals}, lost 0, duplicate 0, undone 0, wrong state 0; ` +
      `tasks ${result.tasks.tasks}: duplicate 0, missing 0, skipped past expiry ${result.tasks.skippedPastExpiry}, left open 0; ` +
      `expired undecided ${expired}, shown Expired ${expired}`,
  );
}
