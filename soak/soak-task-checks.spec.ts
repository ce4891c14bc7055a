import type { SoakTask } from './soak-clocks';
import type { TaskCreateRow } from './soak-ledger';
import type { StoredOffer } from './soak-service';
import {
  checkTasks,
  latestMomentOf,
  liveMsBetween,
  unsentCounterAnsweredUntil,
  type TaskFacts,
} from './soak-task-checks';

const MINUTE = 60_000;
const T0 = Date.parse('2026-11-25T09:00:00Z');
const iso = (ms: number): string => new Date(ms).toISOString();

// An offer made at T0, expiring `inMs` later.
function offer(inMs: number, over: Partial<StoredOffer> = {}): StoredOffer {
  return {
    offer_id: 7001,
    offer_request_id: 1001,
    offer_status: 'active',
    offer_amount: 300_000,
    created_at: iso(T0),
    offer_expires: iso(T0 + inMs),
    offer_decided_at: null,
    ...over,
  };
}

const task = (key: string, completed = false, id = key): SoakTask => ({ id, key, completed });

function facts(over: Partial<TaskFacts>): TaskFacts {
  return {
    offers: [],
    tasks: [],
    movedAt: new Map(),
    stageOf: new Map([['7001', 'incoming']]),
    recordMadeAt: new Map([['7001', T0 + 1_000]]),
    nowMs: T0 + 60_000,
    passes: [{ startedMs: T0 + 30_000, finishedMs: T0 + 31_000 }],
    creates: new Map(),
    ...over,
  };
}

describe('checkTasks (the soak’s reading of docs/crm-mapping.md, "Offer clocks")', () => {
  // Made 10 min before its expiry: the 12 min lead time has begun, the escalation (9 min) not yet.
  const undecided = offer(10 * MINUTE);

  it('owes the nearest begun lead time’s task once a complete pass ran in its window', () => {
    const { violations, figures } = checkTasks(facts({ offers: [undecided] }));
    expect(violations.map((v) => `${v.kind}: ${v.detail.split(',')[0]}`)).toEqual([
      'missing task: no task offer:7001:lead:12m',
    ]);
    expect(figures).toMatchObject({ tasks: 0, missing: 1 });
  });

  it('owes nothing where no pass completed (a daemon killed before it finished one)', () => {
    const { violations } = checkTasks(facts({ offers: [undecided], passes: [] }));
    expect(violations).toEqual([]);
  });

  it('owes nothing for a pass that ended before the offer’s record was in the CRM', () => {
    // A pass that listed the offer but could not show it yet (its request not yet linked, or the
    // write refused): the agent cannot see it, so no task hangs on it; the next pass owes one.
    const shownLate = new Map([['7001', T0 + 32_000]]);
    expect(checkTasks(facts({ offers: [undecided], recordMadeAt: shownLate })).violations).toEqual([]);
    const later = [...facts({}).passes, { startedMs: T0 + 40_000, finishedMs: T0 + 41_000 }];
    expect(
      checkTasks(
        facts({ offers: [undecided], recordMadeAt: shownLate, passes: later, nowMs: T0 + 3 * MINUTE }),
      ).violations.map((v) => v.kind),
    ).toEqual(['missing task']);
  });

  it('owes nothing for a pass while a counter that could not be sent stood as the answer, and owes again once it was given up', () => {
    // The agent countered at T0+20 s with a counter that ran out before the drain reached it; the
    // daemon gave it up at T0+35 s, putting the record back (seen: offer 7034, seed 20261209). The
    // pass at T0+30 s read the record in Counter requested: answered, rightly no task.
    const standing = new Map([['7001', [{ fromMs: T0 + 20_000, toMs: T0 + 35_000 }]]]);
    expect(checkTasks(facts({ offers: [undecided], answeredForAWhile: standing })).violations).toEqual([]);
    const after = [...facts({}).passes, { startedMs: T0 + 40_000, finishedMs: T0 + 41_000 }];
    expect(
      checkTasks(
        facts({ offers: [undecided], answeredForAWhile: standing, passes: after, nowMs: T0 + 3 * MINUTE }),
      ).violations.map((v) => v.kind),
    ).toEqual(['missing task']);
    // Never given up (still waiting at the check): no pass since the move owes anything.
    const stillStanding = new Map([['7001', [{ fromMs: T0 + 20_000, toMs: Infinity }]]]);
    expect(
      checkTasks(
        facts({
          offers: [undecided],
          answeredForAWhile: stillStanding,
          passes: after,
          nowMs: T0 + 3 * MINUTE,
        }),
      ).violations,
    ).toEqual([]);
  });

  it('one task per key is right; two are a duplicate', () => {
    expect(
      checkTasks(facts({ offers: [undecided], tasks: [task('offer:7001:lead:12m')] })).violations,
    ).toEqual([]);
    const twice = checkTasks(
      facts({
        offers: [undecided],
        tasks: [task('offer:7001:lead:12m', false, '1'), task('offer:7001:lead:12m', true, '2')],
      }),
    );
    expect(twice.violations.map((v) => v.kind)).toEqual(['duplicate task']);
    expect(twice.figures).toMatchObject({ tasks: 1, duplicate: 1 });
  });

  it('a task of an offer the agent answered must be completed; nothing is owed after the move', () => {
    const moved = new Map([['7001', T0 + 20_000]]);
    const open = checkTasks(
      facts({ offers: [undecided], movedAt: moved, tasks: [task('offer:7001:lead:12m')] }),
    );
    expect(open.violations.map((v) => v.kind)).toEqual(['open task']);
    expect(checkTasks(facts({ offers: [undecided], movedAt: moved })).violations).toEqual([]);
  });

  it('the 12 min task left open once the 6 min lead time has begun is superseded', () => {
    const late = offer(6 * MINUTE + 20_000);
    const { violations } = checkTasks(
      facts({
        offers: [late],
        nowMs: T0 + 90_000,
        passes: [{ startedMs: T0 + 40_000, finishedMs: T0 + 41_000 }],
        tasks: [task('offer:7001:lead:12m'), task('offer:7001:lead:6m'), task('offer:7001:escalation')],
      }),
    );
    expect(violations.map((v) => `${v.kind}: ${v.detail.split(' (')[0]}`)).toEqual([
      'open task: task offer:7001:lead:12m',
    ]);
  });

  it('an offer that ran out undecided: tasks completed, counted as shown Expired by its stage', () => {
    const ran = offer(60_000, { offer_status: 'expired' });
    const check = (stage: string, tasks: SoakTask[]) =>
      checkTasks(facts({ offers: [ran], stageOf: new Map([['7001', stage]]), nowMs: T0 + 90_000, tasks }));
    const shown = check('expired', [task('offer:7001:lead:6m', true), task('offer:7001:escalation', true)]);
    expect(shown.violations).toEqual([]);
    expect(shown.figures).toMatchObject({ tasks: 2, expiredUndecided: 1, shownExpired: 1 });
    const notShown = check('incoming', [
      task('offer:7001:lead:6m', false),
      task('offer:7001:escalation', true),
    ]);
    expect(notShown.violations.map((v) => v.kind)).toEqual(['open task']);
    expect(notShown.figures).toMatchObject({ expiredUndecided: 1, shownExpired: 0 });
  });

  it('what happened in the last 20 s is not judged: the daemon’s next pass has it', () => {
    const ran = offer(85_000, { offer_status: 'expired' });
    const { violations, figures } = checkTasks(
      facts({
        offers: [ran],
        nowMs: T0 + 90_000,
        tasks: [task('offer:7001:lead:6m'), task('offer:7001:escalation')],
      }),
    );
    expect(violations).toEqual([]);
    expect(figures).toMatchObject({ tasks: 2, expiredUndecided: 0 });
  });

  describe('a create the daemon skipped because the offer had run out before the drain sent it', () => {
    // Made at T0, out at T0 + 60 s: the 6 min task and the escalation are owed from the start.
    const ran = offer(60_000, { offer_status: 'expired' });
    const keys = ['offer:7001:lead:6m', 'offer:7001:escalation'];
    const skipped = (queuedMs: number): ReadonlyMap<string, TaskCreateRow> =>
      new Map(
        keys.map((key) => [
          key,
          {
            key,
            state: 'done',
            queuedMs,
            sentMs: T0 + 65_000,
            doneMs: T0 + 65_000,
            skipped: `not made: it expired at ${iso(T0 + 60_000)}, before the task could be sent`,
          },
        ]),
      );
    const check = (over: Partial<TaskFacts>) =>
      checkTasks(
        facts({ offers: [ran], stageOf: new Map([['7001', 'expired']]), nowMs: T0 + 90_000, ...over }),
      );

    it('is counted apart, not missing, when the daemon had less than 20 s to send it', () => {
      const { violations, figures } = check({
        passes: [{ startedMs: T0 + 44_000, finishedMs: T0 + 45_000 }],
        creates: skipped(T0 + 45_000),
      });
      expect(violations).toEqual([]);
      expect(figures).toMatchObject({ missing: 0, skippedPastExpiry: 2, expiredUndecided: 1 });
    });

    it('is missing when the daemon could have queued it 20 s or more before the expiry', () => {
      const { violations, figures } = check({
        passes: [
          { startedMs: T0 + 10_000, finishedMs: T0 + 11_000 },
          { startedMs: T0 + 44_000, finishedMs: T0 + 45_000 },
        ],
        creates: skipped(T0 + 45_000),
      });
      expect(figures).toMatchObject({ missing: 2, skippedPastExpiry: 0 });
      expect(violations[0].detail).toContain(
        'queued 15 s before the expiry (could be from 49 s before the expiry), reached by the drain 5 s after it, skipped: not made',
      );
    });

    // CI (ci29): on a loaded host each start took 16 to 20 s and each life 2 s of work, so 59 s of
    // wall time before an expiry held a few seconds of a live daemon.
    it('counts the time the daemon was live, not the wall time, where its lives are known', () => {
      const passes = [
        { startedMs: T0 + 10_000, finishedMs: T0 + 11_000 },
        { startedMs: T0 + 44_000, finishedMs: T0 + 45_000 },
      ];
      const starved = check({
        passes,
        creates: skipped(T0 + 45_000),
        lives: [
          { fromMs: T0, toMs: T0 + 12_000 },
          { fromMs: T0 + 30_000, toMs: T0 + 35_000 },
          { fromMs: T0 + 55_000, toMs: Infinity },
        ],
      });
      expect(starved.violations).toEqual([]);
      expect(starved.figures).toMatchObject({ missing: 0, skippedPastExpiry: 2 });

      const live = check({
        passes,
        creates: skipped(T0 + 45_000),
        lives: [{ fromMs: T0 + 5_000, toMs: T0 + 40_000 }],
      });
      expect(live.figures).toMatchObject({ missing: 2, skippedPastExpiry: 0 });
      expect(live.violations[0].detail).toContain(
        'could be from 49 s before the expiry, 29 s of it with the daemon live), reached by the drain 5 s after it',
      );
    });

    it('is missing when it was queued that early by a pass a kill then cut short', () => {
      const { figures } = check({
        passes: [{ startedMs: T0 + 44_000, finishedMs: T0 + 45_000 }],
        creates: skipped(T0 + 20_000),
      });
      expect(figures).toMatchObject({ missing: 2, skippedPastExpiry: 0 });
    });

    it('a create never queued is missing, however short the time', () => {
      const { violations, figures } = check({
        passes: [{ startedMs: T0 + 44_000, finishedMs: T0 + 45_000 }],
      });
      expect(figures).toMatchObject({ missing: 2, skippedPastExpiry: 0 });
      expect(violations[0].detail).toContain('never queued, though it could be from 15 s before the expiry');
    });
  });
});

describe('liveMsBetween', () => {
  it('adds the parts of each life inside the span, the last life open; without lives, the wall time', () => {
    const lives = [
      { fromMs: 0, toMs: 10 },
      { fromMs: 20, toMs: 30 },
      { fromMs: 40, toMs: Infinity },
    ];
    expect(liveMsBetween(lives, 5, 45)).toBe(5 + 10 + 5);
    expect(liveMsBetween(lives, 11, 19)).toBe(0);
    expect(liveMsBetween(undefined, 5, 45)).toBe(40);
  });
});

describe('latestMomentOf', () => {
  it('reads a whole-second stamp (Follow Up Boss) as its last moment, a finer one as it is', () => {
    expect(latestMomentOf('2026-11-30T21:49:46Z')).toBe(Date.parse('2026-11-30T21:49:46.999Z'));
    expect(latestMomentOf('2026-11-30T15:49:46-06:00')).toBe(Date.parse('2026-11-30T21:49:46.999Z'));
    expect(latestMomentOf('2026-11-30T21:49:46.123Z')).toBe(Date.parse('2026-11-30T21:49:46.123Z'));
    expect(latestMomentOf('not a time')).toBeNaN();
  });
});

describe('unsentCounterAnsweredUntil', () => {
  const move = { at: 1_000, offerId: '7054', recordId: '21' };

  it('ends at the first refusal after the move, at the drain or at the move', () => {
    expect(unsentCounterAnsweredUntil(move, [], [])).toBe(Infinity);
    expect(unsentCounterAnsweredUntil(move, [{ offerId: '7054', givenUpMs: 5_000 }], [])).toBe(5_000);
    // Seed 20261216, offer 7054: refused at the move 0.7 s before the drain gave the counter up.
    expect(
      unsentCounterAnsweredUntil(
        move,
        [{ offerId: '7054', givenUpMs: 5_000 }],
        [{ recordId: '21', firstMs: 4_300, lastMs: 4_300 }],
      ),
    ).toBe(4_300);
  });

  it("ignores other offers' refusals and those before the move; an earlier error seen again counts at its last sighting", () => {
    expect(
      unsentCounterAnsweredUntil(
        move,
        [
          { offerId: '7055', givenUpMs: 2_000 },
          { offerId: '7054', givenUpMs: 900 },
        ],
        [
          { recordId: '22', firstMs: 2_000, lastMs: 2_000 },
          { recordId: '21', firstMs: 100, lastMs: 800 },
        ],
      ),
    ).toBe(Infinity);
    expect(unsentCounterAnsweredUntil(move, [], [{ recordId: '21', firstMs: 100, lastMs: 3_000 }])).toBe(
      3_000,
    );
  });
});
