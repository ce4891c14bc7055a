import { SerialQueue } from './serial-queue';

describe('SerialQueue', () => {
  it('runs tasks one at a time in the order they were queued', async () => {
    const queue = new SerialQueue();
    const events: string[] = [];
    let running = 0;
    const task = (name: string, ticks: number) => async () => {
      running += 1;
      expect(running).toBe(1);
      events.push(`start ${name}`);
      for (let i = 0; i < ticks; i += 1) await Promise.resolve();
      events.push(`end ${name}`);
      running -= 1;
      return name;
    };
    const results = await Promise.all([
      queue.run(task('a', 5)),
      queue.run(task('b', 1)),
      queue.run(task('c', 3)),
    ]);
    expect(results).toEqual(['a', 'b', 'c']);
    expect(events).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
  });

  it('keeps going after a task fails and reports the failure to its caller only', async () => {
    const queue = new SerialQueue();
    const failing = queue.run(async () => {
      throw new Error('boom');
    });
    const next = queue.run(async () => 42);
    await expect(failing).rejects.toThrow('boom');
    await expect(next).resolves.toBe(42);
    await queue.drain();
    expect(queue.size).toBe(0);
  });
});
