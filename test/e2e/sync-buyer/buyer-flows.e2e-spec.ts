import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UNIQUE_LISTING_KEY } from '../../../src/crm';
import { HubSpotCrmAdapter } from '../../../src/crm/hubspot';
import { crmSchemaFor } from '../../../src/brokerages/crm-setup.schema';
import { startCashOfferSandbox } from '../../../sandbox/cash-offer';
import type { RunningCashOfferSandbox } from '../../../sandbox/cash-offer';
import { DEFAULT_SEARCH_INDEX_LAG_MS, startHubSpotEmulator } from '../../../sandbox/hubspot';
import type { HubSpotEmulator } from '../../../sandbox/hubspot';
import { waitFor } from '../../support/wait-for';
import { startBuyerApp } from './buyer-app';
import type { BuyerApp } from './buyer-app';

const TOKEN = 'pat-buyer-flows-0123456789';
const PARTNER_KEY = 'sandbox-partner-key';

interface StoredRequest {
  offer_request_id: number;
  inventory_property_id: number;
  offer_request_status: string;
  offer_request_expires_at: string | null;
}

// Buyer leads, push to marketplace and the demand check through the daemon's own modules and jobs
// (crm-changes, then outbox-drain), against both simulators and a real ledger file.
describe('buyer-side flows through crm-changes and outbox-drain', () => {
  let dir: string;
  let sandbox: RunningCashOfferSandbox;
  let emulator: HubSpotEmulator;
  let crm: HubSpotCrmAdapter;
  let daemon: BuyerApp;
  let requests: StoredRequest[];
  // Marketplace deal id by offer request id.
  const listingDeal = new Map<number, string>();

  const sandboxControl = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${sandbox.controlUrl}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };
  const leadList = (): Promise<{ lead_id: string; offer_request_id: number }[]> =>
    sandboxControl('GET', '/buyer-leads?limit=1000');
  const storedRequests = (): Promise<StoredRequest[]> => sandboxControl('GET', '/offer-requests?limit=100');
  const createRecord = async (
    type: 'contacts' | 'deals',
    properties: Record<string, string>,
  ): Promise<string> => {
    const res = await fetch(`${emulator.url}/crm/v3/objects/${type}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ properties }),
    });
    if (res.status !== 201) throw new Error(`create ${type}: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { id: string }).id;
  };
  const props = (type: 'contacts' | 'deals', id: string): Record<string, string> =>
    emulator.state.get(type, id)!.properties;
  const flaggedBuyer = async (properties: Record<string, string>, requestId: number): Promise<string> => {
    const id = await createRecord('contacts', { ...properties, cash_offer_submit_lead: 'true' });
    const [result] = await crm.associate([
      { from: { kind: 'contact', id }, to: { kind: 'deal', id: listingDeal.get(requestId)! } },
    ]);
    expect(result.ok).toBe(true);
    return id;
  };
  // One crm-changes cycle after an agent's edit, started once HubSpot's search shows the edit (the
  // emulator's indexing lag is on), as the next cron run would find it.
  const changes = async (): Promise<void> => {
    await waitFor(() => emulator.state.searchCaughtUp(), {
      what: 'the HubSpot emulator search index to catch up',
      timeoutMs: DEFAULT_SEARCH_INDEX_LAG_MS + 10_000,
      intervalMs: 50,
    });
    await daemon.run('crm-changes');
  };
  const changesThenDrain = async (): Promise<void> => {
    await changes();
    await daemon.run('outbox-drain');
  };
  const callsTo = async (method: string, path: string): Promise<number> => {
    const calls = await sandboxControl<{ method: string; path: string }[]>('GET', '/calls');
    return calls.filter((c) => c.method === method && c.path.replace(/\/$/, '').endsWith(path)).length;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cos-buyer-flows-'));
    sandbox = await startCashOfferSandbox({ port: 0, pushDelayMs: 20 });
    emulator = await startHubSpotEmulator({ port: 0, token: TOKEN, rateLimit: null, searchPerSecond: null });
    crm = new HubSpotCrmAdapter({
      accessToken: TOKEN,
      basePath: emulator.url,
      rateLimit: { max: 1000, intervalMs: 1000 },
    });
    await crm.ensureSchema(crmSchemaFor('hubspot'));
    // The partner account owns these requests (it may push them) and may submit leads.
    await sandboxControl('POST', '/seed-active', { count: 4, ownerKey: PARTNER_KEY });
    requests = await storedRequests();
    daemon = await startBuyerApp({
      dir,
      brokerageId: 'partner',
      cashOfferBaseUrl: sandbox.baseUrl,
      cashOfferKey: PARTNER_KEY,
      crmBaseUrl: emulator.url,
      crmToken: TOKEN,
    });
    await daemon.run('marketplace');
    for (const r of requests) {
      const deal = emulator.state.findByProperty('deals', UNIQUE_LISTING_KEY, `req:${r.offer_request_id}`);
      listingDeal.set(r.offer_request_id, deal!.id);
    }
  });

  afterAll(async () => {
    await daemon?.close();
    await emulator?.close();
    await sandbox?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a flagged buyer contact on a marketplace listing becomes one lead, written back, never sent twice', async () => {
    const request = requests[0].offer_request_id;
    const contact = await flaggedBuyer(
      { firstname: 'Ada', lastname: 'Buyer', email: 'ada@example.com' },
      request,
    );

    await changesThenDrain();

    const sent = await leadList();
    expect(sent).toHaveLength(1);
    expect(sent[0].offer_request_id).toBe(request);
    expect(props('contacts', contact)).toMatchObject({
      cash_offer_lead_id: sent[0].lead_id,
      cash_offer_submit_lead: 'false',
    });
    expect(props('contacts', contact).cash_offer_lead_submitted_at).toBeTruthy();

    // The agent flags the same contact again: same contact and listing, same key, nothing sent.
    await crm.updateRecords('contact', [{ id: contact, properties: { cash_offer_submit_lead: 'true' } }]);
    await changesThenDrain();
    expect(await leadList()).toHaveLength(1);
  });

  it('a contact whose write-back was lost gets it from the ledger when read again, without a second lead', async () => {
    const [lead] = await leadList();
    const contact = emulator.state.findByProperty('contacts', 'cash_offer_lead_id', lead.lead_id)!.id;
    // As if the daemon had stopped between the service's answer and the write-back.
    await crm.updateRecords('contact', [
      {
        id: contact,
        properties: {
          cash_offer_lead_id: null,
          cash_offer_lead_submitted_at: null,
          cash_offer_submit_lead: 'true',
        },
      },
    ]);

    await changes();

    expect(props('contacts', contact)).toMatchObject({
      cash_offer_lead_id: lead.lead_id,
      cash_offer_submit_lead: 'false',
    });
    expect(await leadList()).toHaveLength(1);
  });

  it('a lead the service refuses gets a clear message on the contact and is not retried', async () => {
    const request = requests[1].offer_request_id;
    await sandboxControl('POST', `/offer-requests/${request}/expire`);
    const contact = await flaggedBuyer({ firstname: 'Bo', lastname: 'Late', phone: '+15125550101' }, request);

    await changesThenDrain();
    await changesThenDrain();

    expect(await leadList()).toHaveLength(1);
    expect(props('contacts', contact).cash_offer_lead_error).toMatch(
      new RegExp(`refused this buyer lead on listing req:${request}: .*expired`),
    );
    expect(await callsTo('POST', '/buyer/lead')).toBe(2);
  });

  it('a contact that cannot become a lead is told why, and nothing is queued', async () => {
    const contact = await flaggedBuyer({ firstname: 'Cy' }, requests[2].offer_request_id);

    await changesThenDrain();

    expect(props('contacts', contact).cash_offer_lead_error).toBe(
      [
        `contact ${contact} has no last name; a buyer lead needs one`,
        `contact ${contact} has neither an email nor a phone; a buyer lead needs one of them`,
      ].join('\n'),
    );
    expect(await callsTo('POST', '/buyer/lead')).toBe(2);
  });

  it('push to marketplace with and without an expiration date: sent once, the answer on the deal', async () => {
    const active = requests[2];
    const expired = requests[1];
    const expiration = new Date(Date.now() + 5 * 86_400_000).toISOString();
    const withDate = await createRecord('deals', {
      dealname: 'Listing with date',
      cash_offer_inventory_property_id: String(active.inventory_property_id),
      cash_offer_marketplace_expiration: expiration,
      cash_offer_push_to_marketplace: 'true',
    });
    const withoutDate = await createRecord('deals', {
      dealname: 'Listing without date',
      cash_offer_inventory_property_id: String(expired.inventory_property_id),
      cash_offer_push_to_marketplace: 'true',
    });

    await changesThenDrain();
    await changesThenDrain();

    expect(await callsTo('POST', '/push-to-marketplace')).toBe(2);
    expect(props('deals', withDate)).toMatchObject({ cash_offer_push_to_marketplace: 'false' });
    expect(props('deals', withDate).cash_offer_push_result).toMatch(
      new RegExp(`^Pushed \\(expires ${expiration.replace(/[.]/g, '\\.')}\\): `),
    );
    expect(props('deals', withoutDate).cash_offer_push_result).toMatch(
      /^Pushed: The property will be posted/,
    );
    const stored = async (id: number): Promise<StoredRequest> =>
      (await storedRequests()).find((r) => r.offer_request_id === id)!;
    await waitFor(async () => (await stored(expired.offer_request_id)).offer_request_status === 'active', {
      what: 'the pushed request to be active again at the service',
    });
    expect((await stored(expired.offer_request_id)).offer_request_status).toBe('active');
    expect(Date.parse((await stored(active.offer_request_id)).offer_request_expires_at!)).toBe(
      Date.parse(expiration),
    );

    // A write-back lost after the answer is repaired from the ledger when the deal is read again.
    await crm.updateRecords('deal', [
      { id: withDate, properties: { cash_offer_push_result: null, cash_offer_push_to_marketplace: 'true' } },
    ]);
    await changesThenDrain();
    expect(props('deals', withDate).cash_offer_push_result).toMatch(/^Pushed \(expires /);
    expect(props('deals', withDate).cash_offer_push_to_marketplace).toBe('false');
    expect(await callsTo('POST', '/push-to-marketplace')).toBe(2);
  });

  it('a push without an inventory property id is explained on the deal and never sent', async () => {
    const deal = await createRecord('deals', {
      dealname: 'Not submitted yet',
      cash_offer_push_to_marketplace: 'true',
    });

    await changesThenDrain();

    expect(props('deals', deal).cash_offer_push_result).toMatch(
      /^Not pushed: deal \d+ has no Cash Offer inventory property id yet/,
    );
    expect(await callsTo('POST', '/push-to-marketplace')).toBe(2);
  });

  it('a demand check puts the buyer and buy-box counts on the deal and creates no offer request', async () => {
    const before = requests.length;
    const deal = await createRecord('deals', {
      dealname: 'How much demand?',
      listing_state: 'TX',
      listing_postal_code: '75201',
      listing_bedrooms: '3',
      amount: '250000',
      cash_offer_demand_check: 'true',
    });

    await changes();

    expect(props('deals', deal)).toMatchObject({ cash_offer_demand_check: 'false' });
    expect(Number(props('deals', deal).cash_offer_prelim_buyer_count)).toBeGreaterThanOrEqual(0);
    expect(props('deals', deal).cash_offer_prelim_buy_box_count).toMatch(/^\d+$/);
    expect(await callsTo('POST', '/offer-requests/prelim')).toBe(1);
    expect(await storedRequests()).toHaveLength(before);
  });

  // Last: it changes how the sandbox answers (docs/spec-decisions.md, "Other readings").
  it('a lead answered 200 is written back, and a refusal answered 422 is told and not retried', async () => {
    await sandboxControl('PUT', '/spec-readings', { leadAnswer: 'record-200', errorCodes: 'all-422' });
    const request = requests[0].offer_request_id;
    const leadsBefore = await leadList();
    const contact = await flaggedBuyer(
      { firstname: 'Cy', lastname: 'Buyer', email: 'cy@example.com' },
      request,
    );
    await changesThenDrain();
    const [lead] = (await leadList()).slice(leadsBefore.length);
    expect(props('contacts', contact)).toMatchObject({
      cash_offer_lead_id: lead.lead_id,
      cash_offer_submit_lead: 'false',
    });
    const sentBefore = await callsTo('POST', '/buyer/lead');

    await sandboxControl('POST', `/offer-requests/${request}/expire`);
    const late = await flaggedBuyer({ firstname: 'Di', lastname: 'Late', phone: '+15125550102' }, request);
    await changesThenDrain();
    await changesThenDrain();
    expect(props('contacts', late).cash_offer_lead_error).toMatch(
      new RegExp(`refused this buyer lead on listing req:${request}: .*\\(422\\).*expired`),
    );
    expect(await callsTo('POST', '/buyer/lead')).toBe(sentBefore + 1);
    const calls = await sandboxControl<{ method: string; path: string; status: number }[]>('GET', '/calls');
    expect(calls.filter((c) => c.path.endsWith('/buyer/lead')).map((c) => c.status)).toEqual(
      expect.arrayContaining([200, 422]),
    );
  });

  // Buyer soak seed 1: a contact ticked again after its lead went, once the listing had left the
  // marketplace, showed its lead id beside "is no longer listed" (a problem of a lead not yet made).
  it('a contact ticked again after its lead went, on a listing since gone from the marketplace, keeps its lead and shows no error', async () => {
    const request = requests[0].offer_request_id; // expired by the test before
    const [first] = await leadList();
    const contact = emulator.state.findByProperty('contacts', 'cash_offer_lead_id', first.lead_id)!.id;
    await daemon.run('marketplace');
    expect(props('deals', listingDeal.get(request)!).cash_offer_listing_status).toBe('no_longer_listed');
    const leadsBefore = (await leadList()).length;

    await crm.updateRecords('contact', [{ id: contact, properties: { cash_offer_submit_lead: 'true' } }]);
    await changesThenDrain();

    expect(props('contacts', contact).cash_offer_lead_error ?? '').toBe('');
    expect(props('contacts', contact).cash_offer_lead_id).toBe(first.lead_id);
    expect(await leadList()).toHaveLength(leadsBefore);
  });

  // Which lead fields the service requires is not shown: a refusal naming one is told in the agent's
  // words, and the lead goes again, once, when the agent fills it; never while the contact is unchanged.
  it('a lead refused for a field the contact lacks is told where to fix it, and sent once the agent fills it', async () => {
    await sandboxControl('PUT', '/spec-readings', { leadRequiredFields: 'all', errorCodes: 'ours' });
    const request = requests[3].offer_request_id;
    const leadsBefore = (await leadList()).length;
    const sentBefore = await callsTo('POST', '/buyer/lead');
    const contact = await flaggedBuyer(
      { firstname: 'Ed', lastname: 'Buyer', email: 'ed@example.com' },
      request,
    );

    await changesThenDrain();
    expect(props('contacts', contact).cash_offer_lead_error).toBe(
      `The Cash Offer service refused this buyer lead on listing req:${request}: POST /buyer/lead: the service refused the record (400): primary_phone is required. ` +
        "Where to fix it: primary_phone is the contact's phone. It is sent again when the contact is changed.",
    );
    expect(props('contacts', contact).cash_offer_submit_lead).toBe('true');

    // Edited, but not in what the lead sends: the refused body is not sent again.
    const [edited] = await crm.updateRecords('contact', [
      { id: contact, properties: { company: 'Investor LLC' } },
    ]);
    expect(edited.ok).toBe(true);
    await changesThenDrain();
    expect(await callsTo('POST', '/buyer/lead')).toBe(sentBefore + 1);

    await crm.updateRecords('contact', [{ id: contact, properties: { phone: '+15125550103' } }]);
    await changesThenDrain();
    await changesThenDrain();
    const leads = (await leadList()).slice(leadsBefore);
    expect(leads).toHaveLength(1);
    expect(props('contacts', contact)).toMatchObject({
      cash_offer_lead_id: leads[0].lead_id,
      cash_offer_submit_lead: 'false',
    });
    expect(props('contacts', contact).cash_offer_lead_error ?? '').toBe('');
    expect(await callsTo('POST', '/buyer/lead')).toBe(sentBefore + 2);
  });
});
