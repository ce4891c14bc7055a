import fc from 'fast-check';
import { RollingWindowLimiter, subWindows } from './rolling-window.limiter';

// Asks for a turn at each of `arrivals` (ms from now, fake time) and returns the grant times.
async function grantTimes(limiter: RollingWindowLimiter, arrivals: number[], runForMs: number) {
  const granted: number[] = [];
  for (const at of arrivals)
    setTimeout(() => void limiter.acquire().then(() => granted.push(Date.now())), at);
  await jest.advanceTimersByTimeAsync(runForMs);
  return granted.sort((a, b) => a - b);
}

describe('RollingWindowLimiter', () => {
  beforeEach(() => jest.useFakeTimers({ now: 0 }));
  afterEach(() => jest.useRealTimers());

  it('never lets more than max calls into any rolling window, whatever the arrivals', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 60 }),
        fc.integer({ min: 1, max: 2000 }),
        fc.array(fc.integer({ min: 0, max: 3000 }), { minLength: 1, maxLength: 120 }),
        async (max, intervalMs, arrivals) => {
          const limiter = new RollingWindowLimiter({ max, intervalMs });
          const runFor = 3000 + (arrivals.length + 1) * intervalMs;
          const times = await grantTimes(limiter, arrivals, runFor);
          expect(times).toHaveLength(arrivals.length);
          // The (i+max)th grant is a whole window after the ith: no window of any start holds more.
          for (let i = 0; i + max < times.length; i++)
            expect(times[i + max] - times[i]).toBeGreaterThanOrEqual(intervalMs);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('keeps the full rate: 17 calls at 5 per 200 ms are through by 640 ms', async () => {
    const limiter = new RollingWindowLimiter({ max: 5, intervalMs: 200 });
    const times = await grantTimes(limiter, Array<number>(17).fill(0), 5000);
    expect(times).toHaveLength(17);
    expect(times[16]).toBeLessThanOrEqual(640);
  });

  it('cuts a high limit into sub-windows the timers can keep, losing little of the rate', () => {
    expect(subWindows({ max: 100, intervalMs: 10_250 })).toEqual({ points: 1, durationMs: 103 });
    const fast = subWindows({ max: 10_000, intervalMs: 1000 });
    expect(fast.durationMs).toBeGreaterThanOrEqual(10);
    expect((fast.points * 1000) / fast.durationMs).toBeGreaterThan(9800);
  });

  it('with workers sharing a ledger, also takes a turn of the account budget', async () => {
    const turns: string[] = [];
    const shared = {
      acquire: async (account: string, limit: { max: number; intervalMs: number }) => {
        turns.push(`${account} ${limit.max}/${limit.intervalMs}`);
      },
    };
    const limiter = new RollingWindowLimiter(
      { max: 100, intervalMs: 10_250 },
      { limiter: shared, account: 'a' },
    );
    await limiter.acquire();
    expect(turns).toEqual(['a 100/10250']);
  });
});
