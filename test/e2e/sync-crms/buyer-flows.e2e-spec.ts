import { CRM_ROLE, MARKETPLACE_PIPELINE, UNIQUE_LISTING_KEY, type CrmRecord } from '../../../src/crm';
import { FLOW_TARGETS, startSyncApp, type SyncTestApp } from '../../support/sync-app';
import { waitFor } from '../../support/wait-for';

const PARTNER_KEY = 'sandbox-partner-key';
const LISTING_PROPS = [
  UNIQUE_LISTING_KEY,
  CRM_ROLE.name,
  'cash_offer_listing_request_id',
  'cash_offer_listing_status',
  'cash_offer_listing_asking',
];
const CONTACT_PROPS = ['cash_offer_submit_lead', 'cash_offer_lead_id', 'cash_offer_lead_error'];

// The buyer side, the same test for every CRM: the marketplace mirrored into the CRM, and a buyer
// contact flagged on a marketplace record becoming one lead.
describe.each(FLOW_TARGETS)('buyer flows against %s, ledger on %s', (kind, engine) => {
  let t: SyncTestApp;
  let requestIds: number[];

  const control = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${t.sandbox.controlUrl}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    const text = await res.text();
    return (text ? JSON.parse(text) : undefined) as T;
  };
  const marketplaceRecord = async (requestId: number): Promise<CrmRecord | undefined> => {
    const [record] = await t.world.port.findByUniqueValues(
      'deal',
      UNIQUE_LISTING_KEY,
      [`req:${requestId}`],
      LISTING_PROPS,
    );
    return record;
  };

  beforeAll(async () => {
    t = await startSyncApp(kind, { cashOfferKey: PARTNER_KEY, engine });
    await control('POST', '/seed-active', { count: 3, ownerKey: PARTNER_KEY });
    const stored = await control<{ offer_request_id: number }[]>('GET', '/offer-requests');
    requestIds = stored.map((r) => r.offer_request_id);
  });

  afterAll(async () => {
    await t?.close();
  });

  it('mirrors the marketplace into its pipeline once; a pass with nothing changed writes nothing', async () => {
    const first = await t.run('marketplace');
    expect(first.counts).toMatchObject({ read: 3, created: 3, failed: 0 });
    for (const id of requestIds) {
      const record = await marketplaceRecord(id);
      expect(record).toBeDefined();
      expect(t.stages.resolve(record!.pipelineId, record!.stageId)).toEqual({
        pipelineKey: MARKETPLACE_PIPELINE,
        stageKey: 'active',
      });
      expect(record!.properties.cash_offer_listing_request_id).toBe(String(id));
      expect(record!.properties[CRM_ROLE.name]).toMatch(/^Marketplace: /);
    }
    const deals = t.world.countDeals();
    const second = await t.run('marketplace');
    expect(second.counts).toMatchObject({ read: 3, created: 0, updated: 0, unchanged: 3 });
    expect(t.world.countDeals()).toBe(deals);
  });

  it('a buyer contact flagged on a marketplace record becomes one lead, written back, never sent twice', async () => {
    const listing = await marketplaceRecord(requestIds[0]);
    const contactId = await t.world.createContact('Ada', 'Buyer', 'ada@example.com');
    const [flagged] = await t.world.port.updateRecords('contact', [
      { id: contactId, properties: { cash_offer_submit_lead: 'true' } },
    ]);
    expect(flagged.ok).toBe(true);
    const [linked] = await t.world.port.associate([
      { from: { kind: 'contact', id: contactId }, to: { kind: 'deal', id: listing!.id } },
    ]);
    expect(linked.ok).toBe(true);

    await t.run('crm-changes');
    await t.run('outbox-drain');
    const contact = await waitFor(
      async () => {
        const [c] = await t.world.port.getRecords('contact', [contactId], CONTACT_PROPS);
        return c?.properties.cash_offer_lead_id ? c : undefined;
      },
      { what: 'the lead id on the buyer contact' },
    );
    expect(contact.properties.cash_offer_submit_lead).toBe('false');
    const leads = (await control<{ method: string; path: string }[]>('GET', '/calls')).filter(
      (c) => c.method === 'POST' && c.path.endsWith('/buyer/lead'),
    );
    expect(leads).toHaveLength(1);

    // Flagged again: same contact, same listing, nothing sent.
    await t.world.port.updateRecords('contact', [
      { id: contactId, properties: { cash_offer_submit_lead: 'true' } },
    ]);
    await t.run('crm-changes');
    await t.run('outbox-drain');
    const again = (await control<{ method: string; path: string }[]>('GET', '/calls')).filter(
      (c) => c.method === 'POST' && c.path.endsWith('/buyer/lead'),
    );
    expect(again).toHaveLength(1);
  });

  const callsTo = async (method: string, suffix: string): Promise<number> =>
    (await control<{ method: string; path: string }[]>('GET', '/calls')).filter(
      (c) => c.method === method && c.path.endsWith(suffix),
    ).length;
  const listingDeal = async (properties: Record<string, string>): Promise<string> => {
    const { pipelineId, initialStageId } = t.world.listings;
    const id = await t.world.createDeal('Listing', pipelineId, initialStageId);
    const [written] = await t.world.port.updateRecords('deal', [{ id, properties }]);
    if (!written.ok) throw written.error;
    return id;
  };
  const dealProps = async (id: string, names: string[]) =>
    (await t.world.port.getRecords('deal', [id], names))[0].properties;

  it('push to marketplace: sent once, the answer and the cleared flag on the deal', async () => {
    const stored = await control<{ offer_request_id: number; inventory_property_id: number }[]>(
      'GET',
      '/offer-requests',
    );
    const expiration = new Date(Date.now() + 5 * 86_400_000).toISOString();
    const deal = await listingDeal({
      cash_offer_inventory_property_id: String(stored[2].inventory_property_id),
      cash_offer_marketplace_expiration: expiration,
      cash_offer_push_to_marketplace: 'true',
    });
    await t.run('crm-changes');
    await t.run('outbox-drain');
    await t.run('crm-changes');
    await t.run('outbox-drain');
    expect(await callsTo('POST', '/push-to-marketplace')).toBe(1);
    const props = await dealProps(deal, ['cash_offer_push_to_marketplace', 'cash_offer_push_result']);
    expect(props.cash_offer_push_to_marketplace).toBe('false');
    expect(props.cash_offer_push_result).toMatch(/^Pushed \(expires /);
  });

  it('a demand check puts the buyer and buy-box counts on the deal and creates no offer request', async () => {
    const before = (await control<unknown[]>('GET', '/offer-requests')).length;
    const deal = await listingDeal({
      [CRM_ROLE.amount]: '250000',
      listing_state: 'TX',
      listing_postal_code: '75201',
      listing_bedrooms: '3',
      cash_offer_demand_check: 'true',
    });
    await t.run('crm-changes');
    const props = await dealProps(deal, [
      'cash_offer_demand_check',
      'cash_offer_prelim_buyer_count',
      'cash_offer_prelim_buy_box_count',
    ]);
    expect(props.cash_offer_demand_check).toBe('false');
    expect(props.cash_offer_prelim_buy_box_count).toMatch(/^\d+$/);
    expect(await callsTo('POST', '/offer-requests/prelim')).toBe(1);
    expect(await control<unknown[]>('GET', '/offer-requests')).toHaveLength(before);
  });
});
