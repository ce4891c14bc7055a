import { sendLanes, sendOrder } from './send-order';

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
