import { CoalescedTask } from './coalesced-task';

describe('CoalescedTask', () => {
  it('runs once more after the run under way for any number of asks meanwhile, and reports errors', async () => {
    let runs = 0;
    let release!: () => void;
    const errors: unknown[] = [];
    const task = new CoalescedTask(
      async () => {
        runs += 1;
        if (runs === 1) await new Promise<void>((resolve) => (release = resolve));
        if (runs === 2) throw new Error('second run failed');
      },
      (e) => errors.push(e),
    );
    const first = task.run();
    const asks = [task.run(), task.run(), task.run()];
    release();
    await Promise.all([first, ...asks]);
    expect(runs).toBe(2);
    expect(errors).toEqual([new Error('second run failed')]);
    await task.run();
    expect(runs).toBe(3);
  });

  it('starts nothing once closed, and waits for the run under way', async () => {
    let runs = 0;
    const task = new CoalescedTask(
      async () => {
        runs += 1;
      },
      () => undefined,
    );
    const running = task.run();
    await task.close();
    await running;
    await task.run();
    expect(runs).toBe(1);
  });
});
