import {
  checkBuyerSoak,
  type BuyerSoakFacts,
  type ContactShown,
  type LeadAsk,
  type MarketplaceRecord,
  type ServiceListing,
} from './buyer-soak-checks';

const listing = (id: number, status = 'active'): ServiceListing => ({
  offer_request_id: id,
  inventory_property_id: id + 500,
  offer_request_status: status,
  offer_request_asking: 200_000,
  property: { StreetNumber: String(100 + id), StreetName: 'Oak Ave', PostalCode: String(30000 + id) },
});
const record = (
  id: string,
  requestId: number,
  shown: Partial<MarketplaceRecord> = {},
): MarketplaceRecord => ({
  id,
  key: `req:${requestId}`,
  requestId: String(requestId),
  inventoryId: String(requestId + 500),
  status: 'active',
  asking: '200000',
  stage: 'active',
  address: `${100 + requestId} Oak Ave`,
  postalCode: String(30000 + requestId),
  ...shown,
});
const ask = (contactId: string, requestId: number, complete = true): LeadAsk => ({
  contactId,
  lastName: `Buyer${contactId}`,
  requestId: String(requestId),
  complete,
});
const contact = (id: string, leadId = '', error = ''): [string, ContactShown] => [id, { id, leadId, error }];

function facts(over: Partial<BuyerSoakFacts> = {}): BuyerSoakFacts {
  return {
    listings: [listing(1), listing(2, 'under_contract')],
    records: [record('d1', 1), record('d2', 2, { status: 'no_longer_listed', stage: 'no_longer_listed' })],
    leads: [{ lead_id: 'L1', last_name: 'Buyerc1', offer_request_id: 1 }],
    asks: [ask('c1', 1), ask('c2', 2)],
    contacts: new Map([contact('c1', 'L1'), contact('c2', '', 'refused: request 2 is under_contract')]),
    ...over,
  };
}

const kinds = (f: BuyerSoakFacts): string[] =>
  checkBuyerSoak(f).violations.map((v) => `${v.kind} ${v.record}`);

describe('checkBuyerSoak', () => {
  it('finds nothing when each listing shows once as the service lists it and each lead is shown or told', () => {
    const { violations, figures } = checkBuyerSoak(facts());
    expect(violations).toEqual([]);
    expect(figures).toEqual({
      leadsShown: 1,
      leadsInDoubt: 0,
      leadsRefused: 1,
      leadsDeclined: 0,
      leadsUnnamed: 0,
    });
  });

  it('counts two records of one listing key as a duplicate', () => {
    expect(kinds(facts({ records: [...facts().records, record('d3', 1)] }))).toEqual([
      'duplicate listing req:1',
    ]);
  });

  it('counts an active listing no record shows as lost', () => {
    expect(kinds(facts({ records: [facts().records[1]] }))).toEqual(['lost request 1']);
  });

  it('counts a record still active for a listing the service took off, or showing another asking price, as wrong', () => {
    const records = [record('d1', 1, { asking: '150000' }), record('d2', 2)];
    expect(kinds(facts({ records }))).toEqual([
      'wrong state marketplace record d1 (req:1)',
      'wrong state marketplace record d2 (req:2)',
    ]);
  });

  it('finds the listing of a record without a request id by its inventory id', () => {
    const records = [
      record('d1', 1, { key: 'inv:501', requestId: '' }),
      record('d2', 2, { key: 'inv:502', requestId: '', stage: 'active', status: 'active' }),
    ];
    expect(kinds(facts({ records }))).toEqual(['wrong state marketplace record d2 (inv:502)']);
  });

  it('finds the listing of a record with no ids by its street address and postal code', () => {
    const records = [
      record('d1', 1, {
        key: 'addr:101 oak ave|30001',
        requestId: '',
        inventoryId: '',
        address: '101 Oak Ave.',
      }),
      record('d2', 2, { key: 'addr:102 oak ave|30002', requestId: '', inventoryId: '' }),
    ];
    expect(kinds(facts({ records }))).toEqual(['wrong state marketplace record d2 (addr:102 oak ave|30002)']);
  });

  it('counts a second lead for one ask as a duplicate', () => {
    const leads = [...facts().leads, { lead_id: 'L2', last_name: 'Buyerc1', offer_request_id: 1 }];
    expect(kinds(facts({ leads }))).toEqual(['duplicate contact c1 (Buyerc1) on request 1']);
  });

  it('takes a lead said to be in doubt on its contact as told, sent or not', () => {
    const doubt = 'This buyer lead on listing req:1 may already have been submitted (the answer was lost)';
    const contacts = new Map([contact('c1', '', doubt), contact('c2', '', 'refused')]);
    expect(kinds(facts({ contacts }))).toEqual([]);
    const unsent = checkBuyerSoak(facts({ leads: [], contacts }));
    expect(unsent.violations).toEqual([]);
    expect(unsent.figures.leadsInDoubt).toBe(1);
  });

  it('counts a sent lead whose contact shows an error beside its id, or no id, as wrong', () => {
    const shown = new Map([contact('c1', 'L1', 'is no longer listed'), contact('c2', '', 'refused')]);
    expect(kinds(facts({ contacts: shown }))).toEqual(['wrong state contact c1 (Buyerc1) on request 1']);
    const none = new Map([contact('c1'), contact('c2', '', 'refused')]);
    expect(kinds(facts({ contacts: none }))).toEqual(['wrong state contact c1 (Buyerc1) on request 1']);
  });

  // A contact the daemon declined for a field it carries: the daemon misread it, whatever the
  // service would have made of the lead.
  it('counts a complete contact the daemon declined as lacking what a lead needs as wrong, an incomplete one as told', () => {
    const declined = 'contact c2 has neither an email nor a phone; a buyer lead needs one of them';
    const contacts = new Map([contact('c1', 'L1'), contact('c2', '', declined)]);
    expect(kinds(facts({ contacts }))).toEqual(['wrong state contact c2 (Buyerc2) on request 2']);
    const incomplete = checkBuyerSoak(facts({ contacts, asks: [ask('c1', 1), ask('c2', 2, false)] }));
    expect(incomplete.violations).toEqual([]);
    expect(incomplete.figures).toMatchObject({ leadsRefused: 1, leadsDeclined: 1 });
  });

  it('counts an ask on a listing the service gave no request id for as told, and says how many there were', () => {
    const unnamed =
      "the marketplace listing 1 Main St carries no offer request id, so a lead cannot name it (the Cash Offer service's active list gave none for it; nothing on the contact can supply it)";
    const contacts = new Map([contact('c1', 'L1'), contact('c2', '', unnamed)]);
    const result = checkBuyerSoak(facts({ contacts }));
    expect(result.violations).toEqual([]);
    expect(result.figures).toMatchObject({ leadsRefused: 1, leadsDeclined: 0, leadsUnnamed: 1 });
  });

  it('counts an ask with no lead and nothing said on its contact as lost', () => {
    const shown = new Map([contact('c1', 'L1'), contact('c2')]);
    expect(kinds(facts({ contacts: shown }))).toEqual(['lost contact c2 (Buyerc2) on request 2']);
  });
});
