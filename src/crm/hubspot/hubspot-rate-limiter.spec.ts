import { HubSpotRateLimiter } from './hubspot-rate-limiter';

// Times at which `count` acquisitions on one lane were granted, all asked for at once.
async function grantTimes(limiter: HubSpotRateLimiter, lane: 'general' | 'search', count: number) {
  const started = Date.now();
  return Promise.all(
    Array.from({ length: count }, () => limiter.acquire(lane).then(() => Date.now() - started)),
  );
}

describe('HubSpotRateLimiter', () => {
  it('lets a whole burst through at once, then never more than max in any window', async () => {
    const limiter = new HubSpotRateLimiter({
      rateLimit: { max: 5, intervalMs: 200 },
      searchPerSecond: 100,
      rateLimitMarginMs: 20,
    });
    const times = (await grantTimes(limiter, 'general', 17)).sort((a, b) => a - b);
    expect(times.slice(0, 5).every((t) => t < 150)).toBe(true);
    // The (i+5)th grant comes a whole window after the ith (the margin absorbs timer jitter): a
    // rolling window, not fixed ones whose boundary could let 2 x max through within one interval.
    for (let i = 0; i + 5 < times.length; i++) expect(times[i + 5] - times[i]).toBeGreaterThanOrEqual(200);
    // ...and no later than needed: 17 calls need three more windows after the burst (660 ms), far
    // from one window per call; the bound leaves room for a busy machine's timers.
    expect(times[16]).toBeLessThan(1500);
  });

  it('keeps search on its own per-second lane', async () => {
    const limiter = new HubSpotRateLimiter({
      rateLimit: { max: 1000, intervalMs: 10_000 },
      searchPerSecond: 2,
      rateLimitMarginMs: 0,
    });
    const [general, search] = await Promise.all([
      grantTimes(limiter, 'general', 10),
      grantTimes(limiter, 'search', 3),
    ]);
    expect(Math.max(...general)).toBeLessThan(500);
    expect(search.sort((a, b) => a - b)[2]).toBeGreaterThanOrEqual(999);
  });

  it('with workers sharing a ledger, also takes a turn of the portal budget, per lane', async () => {
    const turns: string[] = [];
    const shared = {
      acquire: async (account: string, limit: { max: number; intervalMs: number }) => {
        turns.push(`${account} ${limit.max}/${limit.intervalMs}`);
      },
    };
    const limiter = new HubSpotRateLimiter(
      { rateLimit: { max: 100, intervalMs: 10_000 }, searchPerSecond: 5, rateLimitMarginMs: 250 },
      { limiter: shared, portal: 'hubspot:abc' },
    );
    await limiter.acquire('general');
    await limiter.acquire('search');
    expect(turns).toEqual(['hubspot:abc:general 100/10250', 'hubspot:abc:search 5/1250']);
  });
});
