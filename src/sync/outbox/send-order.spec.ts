import { runLanes, sendLanes, sendOrder } from './send-order';

describe('sendOrder', () => {
  const cmd = (id: number, deadline?: number) => ({ id, deadline });
  const order = (commands: { id: number; deadline?: number }[]) =>
    sendOrder(commands, (c) => c.deadline).map((c) => c.id);

  it('keeps the ledger order (oldest first) when no command has a deadline', () => {
    expect(order([cmd(3), cmd(1), cmd(2)])).toEqual([1, 2, 3]);
  });

  it('sends commands with a deadline first, the nearest first, ahead of older ones without', () => {
    expect(order([cmd(1), cmd(2), cmd(3, 5_000), cmd(4), cmd(5, 1_000), cmd(6, 5_000)])).toEqual([
      5, 3, 6, 1, 2, 4,
    ]);
  });

  it('treats an unreadable deadline as none', () => {
    expect(order([cmd(1), cmd(2, Number.NaN), cmd(3, 10)])).toEqual([3, 1, 2]);
  });
});

describe('sendLanes', () => {
  const lanes = (commands: { id: number; crm: boolean }[]) =>
    sendLanes(commands, (c) => c.crm).map((lane) => lane.map((c) => c.id));

  it("puts the CRM's own commands in a lane beside the service's, each in the batch's order", () => {
    expect(
      lanes([
        { id: 5, crm: false },
        { id: 2, crm: true },
        { id: 1, crm: false },
        { id: 4, crm: true },
      ]),
    ).toEqual([
      [5, 1],
      [2, 4],
    ]);
  });

  it('leaves an empty lane out', () => {
    expect(lanes([{ id: 1, crm: true }])).toEqual([[1]]);
    expect(lanes([{ id: 1, crm: false }])).toEqual([[1]]);
    expect(lanes([])).toEqual([]);
  });
});

describe('runLanes', () => {
  it('works through each lane in its order, side by side, while go() allows', async () => {
    const done: string[] = [];
    let asked = 0;
    await runLanes(
      [
        ['s1', 's2', 's3'],
        ['c1', 'c2'],
      ],
      async (c) => {
        await Promise.resolve();
        done.push(c);
      },
      // Asked before each step: the fourth is refused, so each lane ends where it stands.
      () => (asked += 1) <= 3,
    );
    // Both lanes began before either finished a step.
    expect(done).toEqual(['s1', 'c1', 's2']);
  });

  it('a step that throws stops the other lane after its step in hand, and throws once that is done', async () => {
    const done: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let settled = false;
    const run = runLanes(
      [
        ['slow', 'next'],
        ['broken', 'never'],
      ],
      async (c) => {
        if (c === 'broken') throw new Error('the ledger is gone');
        if (c === 'slow') await held;
        done.push(c);
      },
      () => true,
    ).finally(() => (settled = true));
    await new Promise((resolve) => setImmediate(resolve)); // every step that can run has
    expect(settled).toBe(false); // the slow step is still in hand
    release();
    await expect(run).rejects.toThrow('the ledger is gone');
    expect(done).toEqual(['slow']);
  });
});
