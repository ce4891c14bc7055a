import type { CashOfferClient } from '../../cash-offer';
import type { ActiveOfferRequest, Offer } from '../../cash-offer/schema';
import type { Link, LinkRepository } from '../../ledger';
import { findOfferRequestByExternalId } from './offer-request.finder';

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
    async *streamActiveOfferRequests() {
      for (const page of options.active ?? []) yield page;
    },
  } as unknown as CashOfferClient;
  return { links, client };
}

const active = (id: number, externalId?: string): ActiveOfferRequest => ({
  request: {
    offer_request_id: id,
    offer_request_asking: 1,
    offer_request_external_id: externalId,
    offer_request_status: 'active',
    inventory_property_id: 70 + id,
  },
  property: {},
  media: [],
});

describe('findOfferRequestByExternalId', () => {
  it('trusts the ledger first', async () => {
    const { links, client } = fakes({ link: { remoteId: '12' } });
    expect(await findOfferRequestByExternalId('acme', '9001', client, links)).toEqual({
      offer_request_id: 12,
      found_by: 'ledger link',
    });
  });

  it('then the offers the service lists, by the echoed external id', async () => {
    const { links, client } = fakes({
      offers: [
        { offer_id: 1, offer_request_id: 5, offer_request_external_id: '77' },
        { offer_id: 2, offer_request_id: 6, offer_request_external_id: '9001' },
      ],
    });
    expect(await findOfferRequestByExternalId('acme', '9001', client, links)).toEqual({
      offer_request_id: 6,
      found_by: 'offer payload',
    });
  });

  it('then every page of the active list', async () => {
    const { links, client } = fakes({ active: [[active(1, 'x')], [active(2), active(3, '9001')]] });
    expect(await findOfferRequestByExternalId('acme', '9001', client, links)).toEqual({
      offer_request_id: 3,
      inventory_property_id: 73,
      offer_request_status: 'active',
      found_by: 'active list',
    });
  });

  it('answers nothing when no source names the deal (a request still in review)', async () => {
    const { links, client } = fakes({ active: [[active(1, 'x')]] });
    expect(await findOfferRequestByExternalId('acme', '9001', client, links)).toBeUndefined();
  });
});
