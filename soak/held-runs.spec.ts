import { heldRuns, noPassSince } from './crash-soak';

describe('heldRuns (the settle)', () => {
  const run = (id: number) => ({ id, brokerage_id: 'soak', job: 'offers-reconcile' });

  it('takes a run seen running for under stableMs for the pass in progress, and one past it for held', () => {
    const seen = new Map<number, number>();
    expect(heldRuns([run(1)], seen, 1_000, 8_000)).toEqual([]);
    expect(heldRuns([run(1)], seen, 8_999, 8_000)).toEqual([]);
    expect(heldRuns([run(1)], seen, 9_000, 8_000)).toEqual([
      'run #1 offers-reconcile of soak running for 8 s',
    ]);
  });

  it('judges each run by its own time: back-to-back passes of a slow schedule are never held', () => {
    const seen = new Map<number, number>();
    for (let t = 0, id = 1; t < 60_000; t += 500) {
      if (t % 4_000 === 0) id += 1;
      expect(heldRuns([run(id)], seen, t, 8_000)).toEqual([]);
    }
    expect([...seen.keys()]).toHaveLength(1);
  });
});

describe('noPassSince (the settle)', () => {
  const pass = (startedMs: number) => ({ startedMs, finishedMs: startedMs + 200 });

  // Readings sweep 1649 run 3: an offer expired while the only pass going hung and failed; the
  // settle judged the records before the next pass began.
  it('is busy until a pass that began after the service last changed has succeeded', () => {
    const failedRunBegan = 8_000;
    expect(noPassSince([pass(2_000), pass(6_000)], failedRunBegan + 200)).toBe(
      'no offers-reconcile pass since the service last changed',
    );
    expect(noPassSince([pass(2_000), pass(38_000)], failedRunBegan + 200)).toBe('');
    // One that began before the change and finished after it saw the service as it was.
    expect(noPassSince([{ startedMs: 8_000, finishedMs: 9_000 }], 8_500)).not.toBe('');
  });
});
