import type { CashOfferClient } from '../../cash-offer';
import type { ActiveOfferRequest, Offer } from '../../cash-offer/schema';
import type { Link, LinkRepository } from '../../ledger';
import { findOfferRequestByExternalId, OfferRequestLocator } from './offer-request.finder';

function fakes(options: {
  link?: Partial<Link>;
  offers?: Partial<Offer>[];
  active?: ActiveOfferRequest[][];
}) {
  const links = {
    findByCrmId: async () => (options.link ?? null) as Link | null,
  } as unknown as LinkRepository;
  const client = {
    listOffers: async () => (options.offers ?? []) as Offer[],
    answersFromEveryOffer: () => false,
    async *streamActiveOfferRequests() {
      for (const page of options.active ?? []) yield page;
    },
  } as unknown as CashOfferClient;
  return { links, client };
}

const active = (id: number, externalId?: string, requestedAt?: string): ActiveOfferRequest => ({
  request: {
    offer_requested_at: requestedAt,
    offer_request_id: id,
    offer_request_asking: 1,
    offer_request_external_id: externalId,
    offer_request_status: 'active',
    inventory_property_id: 70 + id,
  },
  property: {},
  media: [],
});

const SENT = new Date('2026-11-20T12:00:00Z');
const find = (client: CashOfferClient, links: LinkRepository, since = SENT) =>
  findOfferRequestByExternalId('acme', '9001', links, new OfferRequestLocator(client), since);

describe('findOfferRequestByExternalId', () => {
  it('trusts the ledger first', async () => {
    const { links, client } = fakes({ link: { remoteId: '12' } });
    expect(await find(client, links)).toEqual({
      offer_request_id: 12,
      found_by: 'ledger link',
    });
  });

  it('then an offer event still waiting for the create, when the offers list echoes nothing', async () => {
    const { links, client } = fakes({ offers: [{ offer_id: 2, offer_request_id: 6 }] });
    const locator = new OfferRequestLocator(client, undefined, () =>
      Promise.resolve([
        { offer_request_id: 5, offer_request_external_id: '77' },
        { offer_request_id: 6, offer_request_external_id: '9001' },
      ]),
    );
    expect(await findOfferRequestByExternalId('acme', '9001', links, locator, SENT)).toEqual({
      offer_request_id: 6,
      found_by: 'offer event',
    });
  });

  it('then the offers the service lists, by the echoed external id', async () => {
    const { links, client } = fakes({
      offers: [
        { offer_id: 1, offer_request_id: 5, offer_request_external_id: '77' },
        { offer_id: 2, offer_request_id: 6, offer_request_external_id: '9001' },
      ],
    });
    expect(await find(client, links)).toEqual({
      offer_request_id: 6,
      found_by: 'offer payload',
    });
  });

  it('then every page of the active list', async () => {
    const { links, client } = fakes({ active: [[active(1, 'x')], [active(2), active(3, '9001')]] });
    expect(await find(client, links)).toEqual({
      offer_request_id: 3,
      inventory_property_id: 73,
      offer_request_status: 'active',
      found_by: 'active list',
    });
  });

  it('takes the inventory id and submission time from the active list when an offer named the request first', async () => {
    const { links, client } = fakes({
      offers: [{ offer_id: 2, offer_request_id: 3, offer_request_external_id: '9001' }],
      active: [[active(3, '9001', '2026-11-20T12:00:01Z')]],
    });
    expect(await find(client, links)).toEqual({
      offer_request_id: 3,
      inventory_property_id: 73,
      offer_request_status: 'active',
      offer_requested_at: '2026-11-20T12:00:01Z',
      found_by: 'active list',
    });
  });

  it('reads the active list newest first only down to the send time, less the clock-skew margin', async () => {
    const pagesRead: number[] = [];
    const pages = [
      [active(9, 'a', '2026-11-22T10:00:00Z')],
      [active(8, 'b', '2026-11-20T11:30:00Z')],
      [active(7, 'c', '2026-11-20T10:00:00Z')],
      [active(6, '9001', '2026-11-19T10:00:00Z')],
    ];
    const links = { findByCrmId: async () => null } as unknown as LinkRepository;
    const client = {
      listOffers: async () => [],
      answersFromEveryOffer: () => false,
      async *streamActiveOfferRequests() {
        for (const [n, page] of pages.entries()) {
          pagesRead.push(n);
          yield page;
        }
      },
    } as unknown as CashOfferClient;
    // Sent at 12:00; the margin reaches back to 11:00; the page of 10:00 is the first wholly older.
    expect(await find(client, links)).toBeUndefined();
    expect(pagesRead).toEqual([0, 1, 2]);
  });

  it('answers nothing when no source names the deal (a request still in review)', async () => {
    const { links, client } = fakes({ active: [[active(1, 'x')]] });
    expect(await find(client, links)).toBeUndefined();
  });
});

describe('OfferRequestLocator, for a list that does not show ours by external id', () => {
  const at = (id: number | undefined, street: string, asking = 300_000): ActiveOfferRequest => ({
    request: { offer_request_asking: asking, ...(id !== undefined ? { offer_request_id: id } : {}) },
    property: {
      StreetNumber: '12',
      StreetName: street,
      PostalCity: 'Austin',
      StateOrProvince: 'TX',
      PostalCode: '78701',
      MlsStatus: 'Active',
    },
    media: [],
  });
  const ours = {
    StreetNumber: '12',
    StreetName: 'Oak St.',
    PostalCity: 'austin',
    StateOrProvince: 'TX',
    PostalCode: '78701-1234',
  };
  const locate = (pages: ActiveOfferRequest[][]) => new OfferRequestLocator(fakes({ active: pages }).client);

  it('finds the one listing at the address and asking price, whatever the spelling, across pages', async () => {
    const locator = locate([[at(5, 'Elm St')], [at(6, 'Oak St')]]);
    expect(await locator.showsOursByExternalId()).toBe(false);
    expect(await locator.byAddressAndAsking(ours, 300_000)).toEqual({ offer_request_id: 6 });
  });

  it('none at it: absent (the same proof as an echoing list); several, or one without an id: ambiguous', async () => {
    expect(await locate([[at(5, 'Elm St')]]).byAddressAndAsking(ours, 300_000)).toBe('absent');
    expect(await locate([[at(6, 'Oak St', 310_000)]]).byAddressAndAsking(ours, 300_000)).toBe('absent');
    // Spelled out differently is another address (no guessing at street suffixes).
    expect(await locate([[at(6, 'Oak St'), at(7, 'Oak Street')]]).byAddressAndAsking(ours, 300_000)).toEqual({
      offer_request_id: 6,
    });
    expect(await locate([[at(6, 'Oak St')], [at(8, 'oak st')]]).byAddressAndAsking(ours, 300_000)).toBe(
      'ambiguous',
    );
    expect(await locate([[at(undefined, 'Oak St')]]).byAddressAndAsking(ours, 300_000)).toBe('ambiguous');
  });
});

describe('OfferRequestLocator.byInventoryId, for a create answered without its request id', () => {
  const listed = (id: number, inventoryId: number, requestedAt?: string): ActiveOfferRequest => ({
    request: {
      offer_request_id: id,
      offer_request_asking: 1,
      inventory_property_id: inventoryId,
      offer_request_status: 'active',
      ...(requestedAt ? { offer_requested_at: requestedAt } : {}),
    },
    property: {},
    media: [],
  });
  const locate = (pages: ActiveOfferRequest[][]) => new OfferRequestLocator(fakes({ active: pages }).client);

  it('finds the one request submitted since the send (less the margin) under that property, across pages', async () => {
    const locator = locate([
      [listed(4, 70, '2026-11-20T12:00:02Z')],
      [listed(5, 71, '2026-11-20T12:00:01Z')],
    ]);
    expect(await locator.byInventoryId(71, SENT)).toEqual({
      offer_request_id: 5,
      inventory_property_id: 71,
      offer_request_status: 'active',
      offer_requested_at: '2026-11-20T12:00:01Z',
      found_by: 'active list (inventory id)',
    });
  });

  it('takes no earlier request of a property listed again for ours (ours may still be in review)', async () => {
    // Yesterday's request on the same property, another brokerage's or an earlier one of ours.
    expect(await locate([[listed(4, 71, '2026-11-19T09:00:00Z')]]).byInventoryId(71, SENT)).toBeUndefined();
    expect(
      await locate([
        [listed(6, 71, '2026-11-20T12:00:03Z'), listed(4, 71, '2026-11-19T09:00:00Z')],
      ]).byInventoryId(71, SENT),
    ).toMatchObject({ offer_request_id: 6 });
  });

  it('answers nothing when two recent requests share the property, and counts a request met twice once', async () => {
    const twoRecent = [[listed(6, 71, '2026-11-20T12:00:03Z'), listed(7, 71, '2026-11-20T12:00:04Z')]];
    expect(await locate(twoRecent).byInventoryId(71, SENT)).toBeUndefined();
    const metTwice = [[listed(6, 71, '2026-11-20T12:00:03Z')], [listed(6, 71, '2026-11-20T12:00:03Z')]];
    expect(await locate(metTwice).byInventoryId(71, SENT)).toMatchObject({ offer_request_id: 6 });
  });

  it('answers nothing for a property the list does not show', async () => {
    expect(await locate([[listed(4, 70, '2026-11-20T12:00:02Z')]]).byInventoryId(71, SENT)).toBeUndefined();
  });
});
