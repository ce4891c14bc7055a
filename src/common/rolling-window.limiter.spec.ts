import fc from 'fast-check';
import { RollingWindowLimiter } from './rolling-window.limiter';

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

  it('lets the whole burst through at once, then keeps the full rate', async () => {
    const limiter = new RollingWindowLimiter({ max: 5, intervalMs: 200 });
    const times = await grantTimes(limiter, Array<number>(17).fill(0), 5000);
    expect(times).toHaveLength(17);
    // 5 at once, 5 when those are a window old, and so on: the 17th leaves with the 4th window.
    expect(times.slice(0, 5)).toEqual([0, 0, 0, 0, 0]);
    expect(times.slice(5, 10)).toEqual([200, 200, 200, 200, 200]);
    expect(times[16]).toBe(600);
  });

  it('holds a high limit too: 190 per 10 s sends a batch of 100 at once', async () => {
    const limiter = new RollingWindowLimiter({ max: 190, intervalMs: 10_250 });
    const times = await grantTimes(limiter, Array<number>(100).fill(0), 100);
    expect(times).toHaveLength(100);
    expect(Math.max(...times)).toBe(0);
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
