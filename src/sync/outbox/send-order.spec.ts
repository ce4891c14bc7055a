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
    sendLanes(commands, { crmOnly: (c) => c.crm, keyOf: (c) => String(c.id), serviceWidth: 3 }).map(
      (lane) => ({ ids: lane.commands.map((c) => c.id), width: lane.width }),
    );

  it("puts the CRM's own commands in a lane beside the service's, each in the batch's order", () => {
    expect(
      lanes([
        { id: 5, crm: false },
        { id: 2, crm: true },
        { id: 1, crm: false },
        { id: 4, crm: true },
      ]),
    ).toEqual([
      { ids: [5, 1], width: 3 },
      { ids: [2, 4], width: 1 },
    ]);
  });

  it('leaves an empty lane out', () => {
    expect(lanes([{ id: 1, crm: true }])).toEqual([{ ids: [1], width: 1 }]);
    expect(lanes([{ id: 1, crm: false }])).toEqual([{ ids: [1], width: 3 }]);
    expect(lanes([])).toEqual([]);
  });
});

describe('runLanes', () => {
  // Commands named "<key>.<n>".
  const lane = (commands: string[], width = 1) => ({
    commands,
    width,
    keyOf: (c: string) => c.split('.')[0],
  });
  const gate = () => {
    let open!: () => void;
    const opened = new Promise<void>((resolve) => (open = resolve));
    return { open, opened };
  };
  const settle = () => new Promise((resolve) => setImmediate(resolve));

  it('works through each lane in its order, side by side, while go() allows', async () => {
    const done: string[] = [];
    let asked = 0;
    await runLanes(
      [lane(['s1', 's2', 's3']), lane(['c1', 'c2'])],
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

  it('has up to its width in hand at once, never two of one key, each key in order', async () => {
    const begun: string[] = [];
    const gates = new Map<string, ReturnType<typeof gate>>();
    const run = runLanes(
      [lane(['a.1', 'a.2', 'b.1', 'c.1', 'd.1', 'b.2'], 3)],
      async (c) => {
        begun.push(c);
        const g = gate();
        gates.set(c, g);
        await g.opened;
      },
      () => true,
    );
    await settle();
    // a.2 waits for a.1: the third place takes c.1, the first free command after it.
    expect(begun).toEqual(['a.1', 'b.1', 'c.1']);
    gates.get('b.1')!.open();
    await settle();
    // The freed place takes the first command whose key is not in hand: d.1, not a.2 (a.1 in hand)
    // and ahead of b.2, which comes later in the order.
    expect(begun).toEqual(['a.1', 'b.1', 'c.1', 'd.1']);
    gates.get('a.1')!.open();
    await settle();
    expect(begun).toEqual(['a.1', 'b.1', 'c.1', 'd.1', 'a.2']);
    gates.get('c.1')!.open();
    await settle();
    expect(begun).toEqual(['a.1', 'b.1', 'c.1', 'd.1', 'a.2', 'b.2']);
    for (const g of gates.values()) g.open();
    await run;
  });

  it('a place waiting for a key in hand ends once its lane has nothing left', async () => {
    const done: string[] = [];
    await runLanes(
      [lane(['a.1', 'a.2', 'a.3'], 3)],
      async (c) => {
        await Promise.resolve();
        done.push(c);
      },
      () => true,
    );
    expect(done).toEqual(['a.1', 'a.2', 'a.3']);
  });

  it('a step that throws stops every lane after its steps in hand, and throws once they are done', async () => {
    const done: string[] = [];
    const held = gate();
    let settled = false;
    const run = runLanes(
      [lane(['slow', 'next']), lane(['x.1', 'broken', 'x.2', 'never'], 2)],
      async (c) => {
        if (c === 'broken') {
          await Promise.resolve();
          throw new Error('the ledger is gone');
        }
        if (c === 'slow' || c === 'x.1') await held.opened;
        done.push(c);
      },
      () => true,
    ).finally(() => (settled = true));
    await settle(); // every step that can run has
    expect(settled).toBe(false); // the slow steps are still in hand
    held.open();
    await expect(run).rejects.toThrow('the ledger is gone');
    expect(done.sort()).toEqual(['slow', 'x.1']);
  });
});
