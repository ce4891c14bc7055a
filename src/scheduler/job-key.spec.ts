import { isJobKeyOf, jobKey, parseJobKey } from './job-key';

describe('jobKey', () => {
  it('is the pg-boss queue name running fleets already store', () => {
    expect(jobKey('acme-realty', 'outbox-drain')).toBe('sync__outbox-drain__acme-realty');
  });

  it('splits back into its pair, and names no other', () => {
    expect(parseJobKey(jobKey('acme-2', 'crm-changes'))).toEqual({
      brokerageId: 'acme-2',
      job: 'crm-changes',
    });
    expect(parseJobKey('sync__not-a-job__acme')).toBeUndefined();
    expect(parseJobKey('sync__marketplace__')).toBeUndefined();
    expect(parseJobKey('ledger-prune')).toBeUndefined();
  });

  it('tells the keys of one brokerage from those of a brokerage whose id extends it', () => {
    expect(isJobKeyOf(jobKey('acme', 'marketplace'), 'acme')).toBe(true);
    expect(isJobKeyOf(jobKey('acme-west', 'marketplace'), 'acme')).toBe(false);
  });
});
