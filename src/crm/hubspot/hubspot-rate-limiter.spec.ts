import { HubSpotRateLimiter } from './hubspot-rate-limiter';

// Times (fake ms) at which `count` acquisitions on one lane were granted, all asked for at once.
async function grantTimes(limiter: HubSpotRateLimiter, lane: 'general' | 'search', count: number) {
  const granted: number[] = [];
  // Each call ends as soon as it is let out: the windows run from then.
  for (let i = 0; i < count; i++)
    void limiter.acquire(lane).then((end) => {
      granted.push(Date.now());
      end();
    });
  await jest.advanceTimersByTimeAsync(10_000);
  return granted;
}

describe('HubSpotRateLimiter', () => {
  beforeEach(() => jest.useFakeTimers({ now: 0 }));
  afterEach(() => jest.useRealTimers());

  it('keeps every rolling window, margin included, to max calls, at full rate', async () => {
    const limiter = new HubSpotRateLimiter({
      rateLimit: { max: 5, intervalMs: 200 },
      searchRateLimit: { max: 100, intervalMs: 1000 },
      rateLimitMarginMs: 20,
      requestTimeoutMs: 30_000,
    });
    const times = await grantTimes(limiter, 'general', 17);
    expect(times).toHaveLength(17);
    for (let i = 0; i + 5 < times.length; i++) expect(times[i + 5] - times[i]).toBeGreaterThanOrEqual(220);
    // One call per 44 ms: 17 calls are through in 16 of those, not one window per call.
    expect(times[16]).toBeLessThanOrEqual(16 * 44);
  });

  it('keeps search on its own per-second lane', async () => {
    const limiter = new HubSpotRateLimiter({
      rateLimit: { max: 1000, intervalMs: 10_000 },
      searchRateLimit: { max: 2, intervalMs: 1000 },
      rateLimitMarginMs: 0,
      requestTimeoutMs: 30_000,
    });
    const [general, search] = await Promise.all([
      grantTimes(limiter, 'general', 10),
      grantTimes(limiter, 'search', 3),
    ]);
    expect(Math.max(...general)).toBeLessThan(100);
    expect(search[2]).toBeGreaterThanOrEqual(1000);
  });

  it('with workers sharing a ledger, also takes a turn of the portal budget, per lane', async () => {
    jest.useRealTimers();
    const turns: string[] = [];
    const shared = {
      acquire: async (account: string, limit: { max: number; intervalMs: number }) => {
        turns.push(`${account} ${limit.max}/${limit.intervalMs}`);
        return () => undefined;
      },
    };
    const limiter = new HubSpotRateLimiter(
      {
        rateLimit: { max: 100, intervalMs: 10_000 },
        searchRateLimit: { max: 5, intervalMs: 1000 },
        rateLimitMarginMs: 250,
        requestTimeoutMs: 30_000,
      },
      { limiter: shared, portal: 'hubspot:abc' },
    );
    await limiter.acquire('general');
    await limiter.acquire('search');
    expect(turns).toEqual(['hubspot:abc:general 100/10250', 'hubspot:abc:search 5/1250']);
  });
});
