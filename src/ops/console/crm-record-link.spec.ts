import { crmRecordLink } from './crm-record-link';

describe('crmRecordLink', () => {
  const template = 'https://app.hubspot.com/contacts/1234567/record/0-3/{id}';

  it('fills the id of a deal into the brokerage template', () => {
    expect(crmRecordLink(template, 'deal', '10008')).toBe(
      'https://app.hubspot.com/contacts/1234567/record/0-3/10008',
    );
  });

  it('gives none without a template, for other kinds, or for an id that is not one', () => {
    expect(crmRecordLink(undefined, 'deal', '10008')).toBeUndefined();
    expect(crmRecordLink(template, 'offer', '7001')).toBeUndefined();
    expect(crmRecordLink(template, 'deal', '"><script>')).toBeUndefined();
  });
});
