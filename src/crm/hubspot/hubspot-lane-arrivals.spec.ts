import fc from 'fast-check';
import { HubSpotRateLimiter, type RequestLane } from './hubspot-rate-limiter';
import { HubSpotRequestRunner } from './hubspot-request.runner';

// HubSpot counts a call when it arrives, not when it leaves here: a call held up on the way (a
// busy event loop on either side, a slow network) arrives late, and calls that left a window
// apart can arrive within one. These tests put a remote behind the runner that counts arrivals as
// the emulator and HubSpot do (a rolling window of `intervalMs` from each arrival) and give each
// call its own time on the way out and back (fake time).

const settings = {
  requestTimeoutMs: 60_000,
  maxRateLimitRetries: 0,
  maxTransientRetries: 0,
  retryBaseDelayMs: 1,
  retryMaxDelayMs: 1,
  breaker: { consecutiveFailures: 1000, halfOpenAfterMs: 30_000 },
};

interface Call {
  // When the caller asks (ms from start), and how long the call takes to arrive and to be answered.
  at: number;
  outMs: number;
  backMs: number;
}

// Runs `calls` through one lane of a portal limited to `max` per `intervalMs` and answers each
// call's arrival time at the remote.
async function arrivals(
  lane: RequestLane,
  limit: { max: number; intervalMs: number },
  marginMs: number,
  calls: Call[],
): Promise<number[]> {
  const limiter = new HubSpotRateLimiter({
    rateLimit: lane === 'general' ? limit : { max: 1000, intervalMs: 10_000 },
    searchRateLimit: lane === 'search' ? limit : { max: 1000, intervalMs: 1000 },
    rateLimitMarginMs: marginMs,
    requestTimeoutMs: 30_000,
  });
  const runner = new HubSpotRequestRunner(limiter, settings, 'the test portal');
  const arrived: number[] = [];
  const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const done = calls.map(
    (call) =>
      new Promise<void>((resolve, reject) =>
        setTimeout(() => {
          runner
            .run({ what: 'search deals', lane, idempotent: true }, async () => {
              await wait(call.outMs);
              arrived.push(Date.now());
              await wait(call.backMs);
            })
            .then(resolve, reject);
        }, call.at),
      ),
  );
  const all = Promise.all(done);
  const worstCycle = Math.max(...calls.map((c) => c.at + c.outMs + c.backMs)) + limit.intervalMs + marginMs;
  await jest.advanceTimersByTimeAsync(worstCycle * (calls.length + 1));
  await all;
  expect(arrived).toHaveLength(calls.length);
  return arrived.sort((a, b) => a - b);
}

// The most arrivals any rolling window of `intervalMs` holds (a window ending at each arrival).
function busiestWindow(times: number[], intervalMs: number): number {
  return Math.max(0, ...times.map((t) => times.filter((u) => u > t - intervalMs && u <= t).length));
}

describe('a HubSpot lane, counted on arrival', () => {
  beforeEach(() => jest.useFakeTimers({ now: 0 }));
  afterEach(() => jest.useRealTimers());

  it('lets no more than max calls arrive in one window when the earlier ones were slow on the way', async () => {
    // Five searches leave at once and take 1.1 s to arrive (a busy event loop); the sixth leaves
    // when the lane frees a slot and arrives at once. Counted from leaving, the sixth left 1.25 s
    // after the first five and still arrives within HubSpot's second of them.
    const slow = Array.from({ length: 5 }, (): Call => ({ at: 0, outMs: 1100, backMs: 50 }));
    const times = await arrivals('search', { max: 5, intervalMs: 1000 }, 250, [
      ...slow,
      { at: 0, outMs: 10, backMs: 50 },
    ]);
    expect(busiestWindow(times, 1000)).toBeLessThanOrEqual(5);
  });

  it('never lets more than max calls arrive in any window, whatever each takes on the way', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<RequestLane>('search', 'general'),
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 100, max: 1500 }),
        fc.constantFrom(0, 250),
        fc.array(
          fc.record({
            at: fc.integer({ min: 0, max: 3000 }),
            outMs: fc.integer({ min: 0, max: 1500 }),
            backMs: fc.integer({ min: 0, max: 500 }),
          }),
          { minLength: 1, maxLength: 30 },
        ),
        async (lane, max, intervalMs, marginMs, calls) => {
          const times = await arrivals(lane, { max, intervalMs }, marginMs, calls);
          expect(busiestWindow(times, intervalMs)).toBeLessThanOrEqual(max);
        },
      ),
      { numRuns: 60 },
    );
  });
});
