import type { CrmCursor, CrmRecord, ReadChangesOptions } from '../../../src/crm';
import { CASH_OFFER_CRM_SCHEMA, CrmError, UNIQUE_REQUEST_ID } from '../../../src/crm';
import { HubSpotCrmAdapter, REQUIRED_HUBSPOT_SCOPES } from '../../../src/crm/hubspot';
import { startHubSpotEmulator } from '../../../sandbox/hubspot';
import type { HubSpotEmulator } from '../../../sandbox/hubspot';
import { freePort } from '../../support/free-port';
import { waitFor } from '../../support/wait-for';
import { EmulatorControl } from './emulator-control';

async function readAll(adapter: HubSpotCrmAdapter, options: ReadChangesOptions) {
  const records: CrmRecord[] = [];
  let cursor: CrmCursor | null = options.since;
  for await (const page of adapter.readChanges(options)) {
    records.push(...page.records);
    cursor = page.cursor;
  }
  return { records, cursor };
}

jest.setTimeout(30_000);

// The adapter against the emulator's defaults (HubSpot's published behaviour: whole-batch 400s,
// search lag on, association paging, scopes, Professional burst limit) with its own defaults
// (100 calls per 10 s).
describe('HubSpotCrmAdapter survives HubSpot as published', () => {
  let emulator: HubSpotEmulator;
  let control: EmulatorControl;
  let adapter: HubSpotCrmAdapter;

  beforeAll(async () => {
    emulator = await startHubSpotEmulator({ port: await freePort(), token: 'pat-real' });
    control = new EmulatorControl(emulator.url);
  });

  afterAll(async () => {
    await emulator.close();
  });

  beforeEach(async () => {
    await control.reset();
    adapter = new HubSpotCrmAdapter({ accessToken: 'pat-real', basePath: emulator.url });
    await adapter.ensureSchema(CASH_OFFER_CRM_SCHEMA);
    await control.clearRequests();
  });

  it('defaults to the safe burst limit, 100 per 10 s, and takes the account tier from settings', () => {
    expect(adapter.options.rateLimit).toEqual({ max: 100, intervalMs: 10_000 });
    const pro = new HubSpotCrmAdapter({ accessToken: 'x', accountTier: 'professional' });
    expect(pro.options.rateLimit).toEqual({ max: 190, intervalMs: 10_000 });
  });

  it('one invalid listing among 250: 249 CRM records written, one error on the right record', async () => {
    const listings = Array.from({ length: 250 }, (_, i) => ({
      key: `L-${i}`,
      properties: {
        dealname: `Listing ${i}`,
        cash_offer_listing_beds: i === 137 ? 'three' : String(i % 6),
      },
    }));
    const results = await adapter.upsertRecords('deal', 'cash_offer_listing_key', listings);

    expect(results.map((r) => r.key)).toEqual(listings.map((l) => l.key));
    const failures = results.filter((r) => !r.ok);
    expect(failures).toHaveLength(1);
    const failure = failures[0];
    if (failure.ok) throw new Error('unreachable');
    expect(failure.key).toBe('L-137');
    expect(failure.error).toBeInstanceOf(CrmError);
    expect(failure.error.code).toBe('INVALID_RECORD');
    expect(failure.error.record).toBe('L-137');
    expect(failure.error.fields).toEqual(['cash_offer_listing_beds']);
    // HubSpot's own words, on that record alone.
    expect(failure.error.message).toMatch(/^deal cash_offer_listing_key=L-137: .*cash_offer_listing_beds/);
    expect(failure.error.message).toContain('three');
    expect(emulator.state.count('deals')).toBe(249);
    expect(emulator.state.findByProperty('deals', 'cash_offer_listing_key', 'L-137')).toBeUndefined();

    // The isolation cost is counted and stays inside the portal's limit: 3 calls, 1 extra, no 429.
    const upserts = (await control.requests()).filter((r) => r.path.endsWith('/batch/upsert'));
    expect(upserts.map((r) => r.status).sort()).toEqual([200, 200, 200, 400]);
    expect(adapter.isolationCallCount).toBe(1);
  });

  it('isolates a bad input of a batch update and writes the rest', async () => {
    const created = await adapter.upsertRecords(
      'deal',
      UNIQUE_REQUEST_ID,
      Array.from({ length: 5 }, (_, i) => ({ key: `u-${i}`, properties: { dealname: `U${i}` } })),
    );
    const ids = created.map((r) => (r.ok ? r.id : ''));
    const results = await adapter.updateRecords(
      'deal',
      ids.map((id, i) => ({
        id,
        properties: { cash_offer_offer_count: i === 2 ? 'many' : String(i) },
      })),
    );
    expect(results.map((r) => r.ok)).toEqual([true, true, false, true, true]);
    expect(!results[2].ok && results[2].error.message).toMatch(new RegExp(`^deal ${ids[2]}: `));
    expect(emulator.state.get('deals', ids[4])!.properties.cash_offer_offer_count).toBe('4');
  });

  it('reads a deleted deal as absent (HubSpot 404), alone or among live ones', async () => {
    const [gone, live] = await adapter.upsertRecords('deal', UNIQUE_REQUEST_ID, [
      { key: 'del-1', properties: { dealname: 'Gone' } },
      { key: 'del-2', properties: { dealname: 'Live' } },
    ]);
    if (!gone.ok || !live.ok) throw new Error('setup failed');
    await fetch(`${emulator.url}/crm/v3/objects/deals/${gone.id}`, {
      method: 'DELETE',
      headers: { Authorization: 'Bearer pat-real' },
    });
    expect(await adapter.getRecords('deal', [gone.id], ['dealname'])).toEqual([]);
    const both = await adapter.getRecords('deal', [gone.id, live.id], ['dealname']);
    expect(both.map((r) => r.id)).toEqual([live.id]);
    const statuses = (await control.requests()).filter((r) => r.path.endsWith('/batch/read'));
    expect(statuses.map((r) => r.status)).toEqual([404, 207]);
  });

  it('follows association paging past 500 links of one record', async () => {
    const [deal] = await adapter.upsertRecords('deal', UNIQUE_REQUEST_ID, [
      { key: 'many', properties: { dealname: 'Popular' } },
    ]);
    if (!deal.ok) throw deal.error;
    await control.seed({ type: 'contacts', count: 520, properties: { email: 'buyer{i}@example.com' } });
    const contactIds = Array.from(
      { length: 520 },
      (_, i) => emulator.state.findByProperty('contacts', 'email', `buyer${i}@example.com`)!.id,
    );
    const linked = await adapter.associate(
      contactIds.map((id) => ({ from: { kind: 'deal', id: deal.id }, to: { kind: 'contact', id } })),
    );
    expect(linked.every((r) => r.ok)).toBe(true);
    const [record] = await adapter.getRecords('deal', [deal.id], ['dealname'], ['contact']);
    expect(new Set(record.associations!.contact)).toEqual(new Set(contactIds));
    const reads = (await control.requests()).filter((r) => r.path.endsWith('/batch/read'));
    expect(reads.filter((r) => r.path.startsWith('/crm/v4/'))).toHaveLength(2);
  });

  it('attributes an association failure to its pair and links the rest', async () => {
    const deals = await adapter.upsertRecords(
      'deal',
      UNIQUE_REQUEST_ID,
      Array.from({ length: 4 }, (_, i) => ({ key: `as-${i}`, properties: { dealname: `A${i}` } })),
    );
    const [contact] = await adapter.upsertRecords('contact', 'email', [
      { key: 'seller@example.com', properties: { firstname: 'Sam' } },
    ]);
    if (!contact.ok) throw contact.error;
    const pairs = deals.map((d, i) => ({
      from: { kind: 'deal' as const, id: d.ok ? d.id : '' },
      to: { kind: 'contact' as const, id: i === 1 ? '555555' : contact.id },
    }));
    const results = await adapter.associate(pairs);
    expect(results.map((r) => r.ok)).toEqual([true, false, true, true]);
    const failed = results[1];
    expect(!failed.ok && failed.error.message).toContain('-> contact 555555');
    expect(!failed.ok && failed.error.code).toBe('NOT_FOUND');
    expect(emulator.state.associatedIds('contacts', contact.id, 'deals').sort()).toEqual(
      [0, 2, 3].map((i) => pairs[i].from.id).sort(),
    );
  });

  it('names a missing scope in setup-crm and in the access check', async () => {
    const scopes = REQUIRED_HUBSPOT_SCOPES.filter((s) => s !== 'crm.schemas.deals.write');
    await control.put('tokens', { token: 'pat-narrow', scopes });
    const narrow = new HubSpotCrmAdapter({ accessToken: 'pat-narrow', basePath: emulator.url });
    expect(await narrow.checkAccess()).toEqual({ checked: true, missing: ['crm.schemas.deals.write'] });
    await expect(narrow.ensureSchema(CASH_OFFER_CRM_SCHEMA)).rejects.toMatchObject({
      code: 'AUTH_FAILED',
      message: expect.stringContaining('crm.schemas.deals.write'),
    });
    expect(await adapter.checkAccess()).toEqual({ checked: true, missing: [] });
  });

  it('a 403 on a call names the scope the token lacks', async () => {
    await control.put('tokens', { token: 'pat-read', scopes: ['crm.objects.deals.read'] });
    const reader = new HubSpotCrmAdapter({ accessToken: 'pat-read', basePath: emulator.url });
    const [result] = await reader.upsertRecords('deal', UNIQUE_REQUEST_ID, [{ key: 'n', properties: {} }]);
    expect(!result.ok && result.error.code).toBe('AUTH_FAILED');
    expect(!result.ok && result.error.message).toContain('crm.objects.deals.write');
  });

  it('does not miss a record the index shows late: the overlap window follows the configured lag', async () => {
    const now = Date.now();
    const at = (agoMs: number) => new Date(now - agoMs).toISOString();
    await control.seed({
      type: 'deals',
      count: 3,
      properties: { dealname: 'early {i}' },
      modifiedAt: at(30_000),
    });
    // Written 20 s ago but indexed only in 1.5 s: HubSpot shows it after records stamped later.
    await control.seed({
      type: 'deals',
      count: 1,
      startIndex: 9,
      properties: { dealname: 'late {i}' },
      modifiedAt: at(20_000),
      visibleAfterMs: 1500,
    });
    await control.seed({
      type: 'deals',
      count: 3,
      startIndex: 3,
      properties: { dealname: 'later {i}' },
      modifiedAt: at(10_000),
    });

    // A portal whose index may lag 15 s: the overlap is at least twice that, whatever overlapMs says.
    const lagAware = new HubSpotCrmAdapter({
      accessToken: 'pat-real',
      basePath: emulator.url,
      searchLagMs: 15_000,
      overlapMs: 1000,
    });
    expect(lagAware.options.overlapMs).toBe(30_000);
    const careless = new HubSpotCrmAdapter({
      accessToken: 'pat-real',
      basePath: emulator.url,
      searchLagMs: 0,
      overlapMs: 1000,
    });
    const first = await readAll(lagAware, { kind: 'deal', since: null, properties: ['dealname'] });
    expect(first.records.map((r) => r.properties.dealname)).not.toContain('late 9');
    expect(first.cursor!.updatedAt).toBe(at(10_000));

    const seen = await waitFor(
      async () => {
        const next = await readAll(lagAware, { kind: 'deal', since: first.cursor, properties: ['dealname'] });
        return next.records.some((r) => r.properties.dealname === 'late 9');
      },
      { what: 'the late edit in a run from the saved cursor', timeoutMs: 10_000, intervalMs: 250 },
    );
    expect(seen).toBe(true);
    // Without the lag in its overlap, the same run from the same cursor never sees it.
    const blind = await readAll(careless, { kind: 'deal', since: first.cursor, properties: ['dealname'] });
    expect(blind.records.map((r) => r.properties.dealname)).not.toContain('late 9');
  });
});
