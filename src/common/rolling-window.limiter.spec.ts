import fc from 'fast-check';
import { withCallPriority, type CallPriority } from './call-priority';
import { LONGEST_CALL_MS, PACE_RECOVERY_WINDOWS, RollingWindowLimiter } from './rolling-window.limiter';

interface Turn {
  grantedAt: number;
  endedAt: number;
}

// Asks for a turn at each `at` (ms from now, fake time) and ends it `outMs` after it was given
// (the call's time out); answers the turns, in the order given.
async function turns(
  limiter: RollingWindowLimiter,
  calls: { at: number; outMs: number }[],
  runForMs: number,
): Promise<Turn[]> {
  const taken: Turn[] = [];
  for (const { at, outMs } of calls)
    setTimeout(
      () =>
        void limiter.acquire().then((end) => {
          const grantedAt = Date.now();
          const ended = () => {
            taken.push({ grantedAt, endedAt: Date.now() });
            end();
          };
          if (outMs === 0) ended();
          else setTimeout(ended, outMs);
        }),
      at,
    );
  await jest.advanceTimersByTimeAsync(runForMs);
  return taken.sort((a, b) => a.grantedAt - b.grantedAt);
}

// The most turns out at one moment, each counted from its grant to a window after it ended: a
// call arrives somewhere in between, so no window at the remote holds more calls than this.
function mostOut(taken: Turn[], intervalMs: number): number {
  return Math.max(
    0,
    ...taken.map(
      (t) => taken.filter((u) => u.grantedAt <= t.grantedAt && t.grantedAt < u.endedAt + intervalMs).length,
    ),
  );
}

describe('RollingWindowLimiter', () => {
  beforeEach(() => jest.useFakeTimers({ now: 0 }));
  afterEach(() => jest.useRealTimers());

  it('never has more than max turns out, each until a window after its call ended, whatever the calls', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 60 }),
        fc.integer({ min: 1, max: 2000 }),
        fc.array(
          fc.record({ at: fc.integer({ min: 0, max: 3000 }), outMs: fc.integer({ min: 0, max: 1500 }) }),
          {
            minLength: 1,
            maxLength: 120,
          },
        ),
        async (max, intervalMs, calls) => {
          const limiter = new RollingWindowLimiter({ max, intervalMs });
          const runFor = 3000 + (calls.length + 1) * (intervalMs + 1500);
          const taken = await turns(limiter, calls, runFor);
          expect(taken).toHaveLength(calls.length);
          expect(mostOut(taken, intervalMs)).toBeLessThanOrEqual(max);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('lets the whole burst through at once, then keeps the full rate', async () => {
    const limiter = new RollingWindowLimiter({ max: 5, intervalMs: 200 });
    const taken = await turns(limiter, Array(17).fill({ at: 0, outMs: 0 }), 5000);
    const times = taken.map((t) => t.grantedAt);
    expect(times).toHaveLength(17);
    // 5 at once, 5 when those are a window old, and so on: the 17th leaves with the 4th window.
    expect(times.slice(0, 5)).toEqual([0, 0, 0, 0, 0]);
    expect(times.slice(5, 10)).toEqual([200, 200, 200, 200, 200]);
    expect(times[16]).toBe(600);
  });

  it('after slowDown gives only the slots its pace allows, and grows back a slot every PACE_RECOVERY_WINDOWS windows', async () => {
    const limiter = new RollingWindowLimiter({ max: 4, intervalMs: 200 });
    expect(limiter.slowDown()).toEqual({ from: 4, to: 2 });
    const taken = await turns(limiter, Array(8).fill({ at: 0, outMs: 0 }), 5000);
    const times = taken.map((t) => t.grantedAt);
    // Two a window until the pace has grown (one slot a second here), then three.
    expect(times).toEqual([0, 0, 200, 200, 400, 400, 600, 600]);
    const later = await turns(limiter, Array(6).fill({ at: 0, outMs: 0 }), 5000);
    expect(later.map((t) => t.grantedAt - 5000)).toEqual([0, 0, 0, 0, 200, 200]);
    expect(PACE_RECOVERY_WINDOWS * 200).toBe(1000);
  });

  it('gives a freed slot to the foreground callers first, each priority in its order', async () => {
    const limiter = new RollingWindowLimiter({ max: 1, intervalMs: 200 });
    const granted: string[] = [];
    const ask = (name: string, priority: CallPriority) =>
      withCallPriority(priority, () =>
        limiter.acquire().then((end) => {
          granted.push(name);
          end();
        }),
      );
    // A reconcile's pages queued first, then an agent's decision and its re-read.
    const all = [
      ask('page 1', 'background'),
      ask('page 2', 'background'),
      ask('page 3', 'background'),
      ask('decision', 'foreground'),
      ask('re-read', 'foreground'),
      limiter.acquire().then((end) => {
        granted.push('unmarked');
        end();
      }),
    ];
    await jest.advanceTimersByTimeAsync(2000);
    await Promise.all(all);
    expect(granted).toEqual(['page 1', 'decision', 're-read', 'unmarked', 'page 2', 'page 3']);
  });

  it("times a slot's window from its call's end, not from its turn", async () => {
    const limiter = new RollingWindowLimiter({ max: 1, intervalMs: 200 });
    const taken = await turns(
      limiter,
      [
        { at: 0, outMs: 500 },
        { at: 0, outMs: 0 },
      ],
      5000,
    );
    expect(taken.map((t) => t.grantedAt)).toEqual([0, 700]);
  });

  it('gives a slot whose call never ends back LONGEST_CALL_MS after its turn, and a window later', async () => {
    const limiter = new RollingWindowLimiter({ max: 1, intervalMs: 200 });
    void limiter.acquire();
    const granted: number[] = [];
    void limiter.acquire().then(() => granted.push(Date.now()));
    await jest.advanceTimersByTimeAsync(LONGEST_CALL_MS + 199);
    expect(granted).toEqual([]);
    await jest.advanceTimersByTimeAsync(1);
    expect(granted).toEqual([LONGEST_CALL_MS + 200]);
  });

  it('holds a high limit too: 190 per 10 s sends a batch of 100 at once', async () => {
    const limiter = new RollingWindowLimiter({ max: 190, intervalMs: 10_250 });
    const taken = await turns(limiter, Array(100).fill({ at: 0, outMs: 50 }), 100);
    expect(taken).toHaveLength(100);
    expect(Math.max(...taken.map((t) => t.grantedAt))).toBe(0);
  });

  it('keeps no timer once every turn has ended (an idle limiter keeps no process alive)', async () => {
    const limiter = new RollingWindowLimiter({ max: 2, intervalMs: 10_000 });
    await turns(limiter, Array(5).fill({ at: 0, outMs: 10 }), 60_000);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('with workers sharing a ledger, also takes a turn of the account budget, and ends it', async () => {
    const log: string[] = [];
    const shared = {
      acquire: async (account: string, limit: { max: number; intervalMs: number }) => {
        log.push(`take ${account} ${limit.max}/${limit.intervalMs}`);
        return () => void log.push(`end ${account}`);
      },
    };
    const limiter = new RollingWindowLimiter(
      { max: 100, intervalMs: 10_250 },
      { limiter: shared, account: 'a', longestCallMs: LONGEST_CALL_MS },
    );
    const end = await limiter.acquire();
    end();
    end();
    expect(log).toEqual(['take a 100/10250', 'end a']);
  });
});
