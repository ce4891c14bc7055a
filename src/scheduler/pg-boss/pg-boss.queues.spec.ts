import { isMinuteCron, isSyncQueue, queueName } from './pg-boss.queues';

describe('pg-boss queues', () => {
  it('names one queue per brokerage and job, recognisably ours', () => {
    expect(queueName('acme-realty', 'outbox-drain')).toBe('sync__outbox-drain__acme-realty');
    expect(isSyncQueue(queueName('acme', 'marketplace'))).toBe(true);
    expect(isSyncQueue('__pgboss__send-it')).toBe(false);
  });

  it('leaves five-field crons to pg-boss and ticks seconds-field crons locally', () => {
    expect(isMinuteCron('*/5 * * * *')).toBe(true);
    expect(isMinuteCron(' 0 3 * * 1 ')).toBe(true);
    expect(isMinuteCron('*/30 * * * * *')).toBe(false);
  });
});
