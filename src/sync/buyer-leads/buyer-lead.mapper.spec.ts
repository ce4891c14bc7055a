import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BuyerLeadInput } from './buyer-lead.mapper';
import { toBuyerLead } from './buyer-lead.mapper';
import { CRM_ROLE } from '../../crm/crm-roles';

const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(join(__dirname, 'fixtures', name), 'utf8'));

describe('toBuyerLead', () => {
  const input = (): BuyerLeadInput => fixture('lead.input.json') as BuyerLeadInput;

  it('maps a buyer contact and its marketplace listing to the lead body (golden fixture)', () => {
    expect(toBuyerLead(input())).toEqual(fixture('lead.expected.json'));
  });

  it('takes a phone when there is no email', () => {
    const i = input();
    i.contact.properties[CRM_ROLE.email] = null;
    i.contact.properties[CRM_ROLE.phone] = '+1 512 555 0101';
    const lead = toBuyerLead(i);
    expect(lead.ok && lead.body).toMatchObject({ primary_phone: '+1 512 555 0101' });
    expect(lead.ok && lead.body).not.toHaveProperty('primary_email');
  });

  it('names every problem with the contact and the listing', () => {
    const i = input();
    i.contact.properties = { [CRM_ROLE.firstName]: 'Ada' };
    i.listing.properties.cash_offer_listing_request_id = null;
    i.listing.properties.cash_offer_listing_status = 'no_longer_listed';
    expect(toBuyerLead(i)).toEqual({
      ok: false,
      problems: [
        'contact 901 has no last name; a buyer lead needs one',
        'contact 901 has neither an email nor a phone; a buyer lead needs one of them',
        "the marketplace listing 12 N Main St #4B carries no offer request id, so a lead cannot name it (the Cash Offer service's active list gave none for it; nothing on the contact can supply it)",
        'the marketplace listing 12 N Main St #4B is no longer listed; leads are taken only on active listings',
      ],
    });
  });

  it('refuses a deal that is not a marketplace listing', () => {
    const i = input();
    i.listing.properties = { [CRM_ROLE.name]: 'A listing deal' };
    const lead = toBuyerLead(i);
    expect(lead.ok).toBe(false);
    expect(!lead.ok && lead.problems[0]).toBe('deal 77 is not a marketplace listing');
  });
});
