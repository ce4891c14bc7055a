import { toCrmTask } from './followupboss-task.mapper';

describe('a Follow Up Boss task in the port’s words', () => {
  const ours = {
    id: 44724,
    personId: 136330,
    name: 'Offer 7012 expires Thu 14:00 [cash-offer-sync: offer:7012:lead:24h]',
    type: 'Follow Up',
    dueDate: '2026-11-26',
    dueDateTime: '2026-11-26T14:00:00Z',
  };

  it('reads the key and the subject from the name, and the due time', () => {
    expect(toCrmTask({ ...ours, isCompleted: 0 })).toEqual({
      id: '44724',
      key: 'offer:7012:lead:24h',
      completed: false,
      dueAt: new Date('2026-11-26T14:00:00Z'),
      subject: 'Offer 7012 expires Thu 14:00',
    });
  });

  it('reads isCompleted as 0/1 (a live account) or as a boolean (FUB’s examples)', () => {
    expect(
      [1, true, 0, false, undefined].map((isCompleted) => toCrmTask({ ...ours, isCompleted }).completed),
    ).toEqual([true, true, false, false, false]);
  });

  it('a task an agent made, due on a day without a time, has no key and no dueAt', () => {
    expect(toCrmTask({ id: 1, name: 'Call Jane', dueDate: '2026-11-26', dueDateTime: null })).toEqual({
      id: '1',
      key: null,
      completed: false,
      dueAt: null,
      subject: 'Call Jane',
    });
  });
});
