import { heldRuns } from './crash-soak';

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
