import { toCrmTask } from './hubspot-task.mapper';

describe('a HubSpot task in the port’s words', () => {
  it('reads the key from the last line of the body, the status and the due time', () => {
    expect(
      toCrmTask('301', {
        hs_task_subject: 'Offer 7012 expires Thu 14:00',
        hs_task_body: 'Decide within 24 h.\n\n[cash-offer-sync: offer:7012:lead:24h]',
        hs_task_status: 'COMPLETED',
        hs_timestamp: '2026-11-26T14:00:00.000Z',
      }),
    ).toEqual({
      id: '301',
      key: 'offer:7012:lead:24h',
      completed: true,
      dueAt: new Date('2026-11-26T14:00:00Z'),
      subject: 'Offer 7012 expires Thu 14:00',
    });
  });

  it('takes a due time in epoch milliseconds, and an unreadable or absent one as null', () => {
    const at = Date.parse('2026-11-26T14:00:00Z');
    expect(toCrmTask('1', { hs_timestamp: String(at) }).dueAt).toEqual(new Date(at));
    expect(toCrmTask('1', { hs_timestamp: 'soon' }).dueAt).toBeNull();
    expect(toCrmTask('1', { hs_timestamp: null }).dueAt).toBeNull();
  });

  it('a task someone else made, not started, has key null and its own subject', () => {
    expect(
      toCrmTask('2', {
        hs_task_subject: null,
        hs_task_body: '<p>Call Jane</p>',
        hs_task_status: 'NOT_STARTED',
      }),
    ).toEqual({ id: '2', key: null, completed: false, dueAt: null, subject: '' });
  });
});
