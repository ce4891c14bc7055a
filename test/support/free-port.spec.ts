import { freePort, workerRange } from './free-port';

describe('freePort', () => {
  it('gives each jest worker a slice of its own, and the whole range outside jest', () => {
    const slices = [1, 2, 3, 4, 5, 6, 7, 8].map((id) => workerRange(String(id)));
    for (const [i, [first, last]] of slices.entries()) {
      expect(first).toBeGreaterThanOrEqual(20_000);
      expect(last).toBeLessThan(32_768);
      for (const [other, otherLast] of slices.slice(i + 1))
        expect(other > last || otherLast < first).toBe(true);
    }
    expect(workerRange(undefined)).toEqual([20_000, 32_767]);
    expect(workerRange('not a number')).toEqual([20_000, 32_767]);
  });

  it('never hands the same port out twice in one process, even before it is bound', async () => {
    const ports = await Promise.all(Array.from({ length: 50 }, () => freePort()));
    expect(new Set(ports).size).toBe(50);
    const [first, last] = workerRange(process.env.JEST_WORKER_ID);
    for (const port of ports) expect(port >= first && port <= last).toBe(true);
  });
});
