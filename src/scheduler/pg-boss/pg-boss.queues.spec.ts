import { isOwnJobKey, jobKey, parseJobKey } from '../job-key';
import { isMinuteCron, runsAtStart } from './pg-boss.queues';

describe('pg-boss queues', () => {
  it('names one queue per brokerage and job, recognisably ours', () => {
    expect(jobKey('acme-realty', 'outbox-drain')).toBe('sync__outbox-drain__acme-realty');
    expect(parseJobKey(jobKey('acme', 'marketplace'))).toBeDefined();
    expect(parseJobKey('__pgboss__send-it')).toBeUndefined();
    expect(isOwnJobKey('sync__a-retired-job__acme')).toBe(true);
    expect(isOwnJobKey('__pgboss__send-it')).toBe(false);
  });

  it('leaves five-field crons to pg-boss and ticks seconds-field crons locally', () => {
    expect(isMinuteCron('*/5 * * * *')).toBe(true);
    expect(isMinuteCron(' 0 3 * * 1 ')).toBe(true);
    expect(isMinuteCron('*/30 * * * * *')).toBe(false);
  });

  it('queues at start only the jobs that run at least once a minute', () => {
    expect(runsAtStart('*/1 * * * *')).toBe(true);
    expect(runsAtStart('*/10 * * * * *')).toBe(true);
    expect(runsAtStart('*/5 * * * *')).toBe(false);
    expect(runsAtStart('0 0 1 1 *')).toBe(false);
  });
});
