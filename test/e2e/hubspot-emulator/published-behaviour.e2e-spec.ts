import { Client } from '@hubspot/api-client';
import { AssociationSpecAssociationCategoryEnum } from '@hubspot/api-client/lib/codegen/crm/associations/v4';
import {
  PropertyCreateFieldTypeEnum,
  PropertyCreateTypeEnum,
} from '@hubspot/api-client/lib/codegen/crm/properties';
import { DEFAULT_SEARCH_INDEX_LAG_MS, startHubSpotEmulator } from '../../../sandbox/hubspot';
import type { HubSpotEmulator } from '../../../sandbox/hubspot';
import { freePort } from '../../support/free-port';
import { waitFor } from '../../support/wait-for';
import { EmulatorControl } from '../crm/emulator-control';

// HubSpot's published behaviour (docs/crm-hubspot.md "The emulator", each with its source), checked
// through the official SDK and over raw HTTP, with the emulator's default settings.
interface SdkError {
  code: number;
  body: Record<string, unknown> & { category?: string; message?: string };
  headers: Record<string, string>;
}

async function sdkError(promise: Promise<unknown>): Promise<SdkError> {
  try {
    await promise;
  } catch (error) {
    return error as SdkError;
  }
  throw new Error('expected the SDK to throw');
}

// Raw HTTP answers are read field by field in the assertions, as the sandbox tests do.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type RawJson = Record<string, any>;

jest.setTimeout(20_000);

describe('HubSpot emulator: published behaviour by default', () => {
  let emulator: HubSpotEmulator;
  let client: Client;
  let control: EmulatorControl;

  beforeAll(async () => {
    emulator = await startHubSpotEmulator({ port: await freePort(), token: 'pat-test' });
    client = new Client({ accessToken: emulator.token, basePath: emulator.url });
    control = new EmulatorControl(emulator.url);
  });

  afterAll(async () => {
    await emulator.close();
  });

  beforeEach(async () => {
    await control.reset();
  });

  async function raw(method: string, path: string, body?: unknown, token = emulator.token) {
    const res = await fetch(`${emulator.url}${path}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return {
      status: res.status,
      headers: res.headers,
      body: (text ? JSON.parse(text) : {}) as RawJson,
    };
  }

  async function uniqueDealProperty(name: string): Promise<void> {
    await client.crm.properties.coreApi.create('deals', {
      name,
      label: name,
      type: PropertyCreateTypeEnum.String,
      fieldType: PropertyCreateFieldTypeEnum.Text,
      groupName: 'dealinformation',
      hasUniqueValue: true,
    });
  }

  describe('property batch create', () => {
    const property = (name: string, groupName = 'dealinformation') => ({
      name,
      label: name,
      type: PropertyCreateTypeEnum.String,
      fieldType: PropertyCreateFieldTypeEnum.Text,
      groupName,
    });

    it('answers 201 with every property made', async () => {
      const answer = await client.crm.properties.batchApi.create('deals', {
        inputs: [property('acme_one'), property('acme_two')],
      });
      expect(answer.status).toBe('COMPLETE');
      expect(answer.results.map((p) => p.name).sort()).toEqual(['acme_one', 'acme_two']);
      expect((await client.crm.properties.coreApi.getByName('deals', 'acme_two')).label).toBe('acme_two');
    });

    it('answers 207 with the ones made and an error per refused input, naming it', async () => {
      await client.crm.properties.coreApi.create('deals', property('acme_taken'));
      const res = await raw('POST', '/crm/v3/properties/deals/batch/create', {
        inputs: [property('acme_new'), property('acme_taken'), property('acme_lost', 'no_such_group')],
      });
      expect(res.status).toBe(207);
      expect((res.body.results as RawJson[]).map((p) => String(p.name))).toEqual(['acme_new']);
      expect(res.body.numErrors).toBe(2);
      expect((res.body.errors as RawJson[]).map((e) => e.context as unknown)).toEqual([
        { propertyName: ['acme_taken'] },
        { propertyName: ['acme_lost'] },
      ]);
      expect(res.body.errors[1].message).toMatch(/no_such_group/);
    });
  });

  describe('batch writes', () => {
    it('batch create answers 207 with per-input errors and links when every input has a trace id', async () => {
      const answer = await client.crm.deals.batchApi.create({
        inputs: [
          { properties: { dealname: 'good' }, associations: [], objectWriteTraceId: 'a' },
          { properties: { amount: 'lots' }, associations: [], objectWriteTraceId: 'b' },
        ],
      });
      expect(answer.results.map((r) => r.objectWriteTraceId)).toEqual(['a']);
      const errors = 'errors' in answer ? answer.errors! : [];
      expect(errors).toHaveLength(1);
      expect(errors[0].category).toBe('VALIDATION_ERROR');
      expect(errors[0].context).toEqual({ objectWriteTraceId: ['b'] });
      expect(errors[0].links).toEqual({});
      expect(emulator.state.count('deals')).toBe(1);
    });

    it('batch create without trace ids fails whole, naming the input, and writes nothing', async () => {
      const res = await raw('POST', '/crm/v3/objects/deals/batch/create', {
        inputs: [{ properties: { dealname: 'good' } }, { properties: { amount: 'lots' } }],
      });
      expect(res.status).toBe(400);
      expect(res.body.category).toBe('VALIDATION_ERROR');
      expect(res.body.context).toEqual({ inputIndex: ['1'] });
      expect(emulator.state.count('deals')).toBe(0);
    });

    it('batch update fails whole on one invalid input (400 VALIDATION_ERROR naming it), even with trace ids', async () => {
      const a = await client.crm.deals.basicApi.create({ properties: { dealname: 'a' }, associations: [] });
      const b = await client.crm.deals.basicApi.create({ properties: { dealname: 'b' }, associations: [] });
      const error = await sdkError(
        client.crm.deals.batchApi.update({
          inputs: [
            { id: a.id, properties: { dealname: 'a2' }, objectWriteTraceId: 'x' },
            { id: b.id, properties: { amount: 'lots' }, objectWriteTraceId: 'y' },
          ],
        }),
      );
      expect(error.code).toBe(400);
      expect(error.body.category).toBe('VALIDATION_ERROR');
      expect(error.body.context).toEqual({ ids: [b.id], inputIndex: ['1'] });
      expect(emulator.state.get('deals', a.id)!.properties.dealname).toBe('a');
    });

    it('batch upsert fails whole over raw HTTP too, with HubSpot message on the bad value', async () => {
      await uniqueDealProperty('listing_key');
      const res = await raw('POST', '/crm/v3/objects/deals/batch/upsert', {
        inputs: [
          { id: 'k1', idProperty: 'listing_key', properties: { dealname: 'ok' } },
          { id: 'k2', idProperty: 'listing_key', properties: { amount: 'many' } },
        ],
      });
      expect(res.status).toBe(400);
      expect(res.body.message).toContain('amount');
      expect(res.body.context.ids).toEqual(['k2']);
      expect(emulator.state.count('deals')).toBe(0);
    });
  });

  describe('batch reads', () => {
    it('answers 404 for only unknown ids and 207 for some', async () => {
      const deal = await client.crm.deals.basicApi.create({
        properties: { dealname: 'x' },
        associations: [],
      });
      const none = await sdkError(
        client.crm.deals.batchApi.read({
          inputs: [{ id: '999991' }],
          properties: [],
          propertiesWithHistory: [],
        }),
      );
      expect(none.code).toBe(404);
      expect(none.body.category).toBe('OBJECT_NOT_FOUND');
      const some = await raw('POST', '/crm/v3/objects/deals/batch/read', {
        inputs: [{ id: deal.id }, { id: '999991' }],
        properties: [],
      });
      expect(some.status).toBe(207);
      expect(some.body.numErrors).toBe(1);
      expect(some.body.errors[0].context.ids).toEqual(['999991']);
    });
  });

  describe('search indexing lag', () => {
    it('is on by default: a new record shows in search only after the lag', async () => {
      const settings = await raw('GET', '/__control/settings');
      expect(settings.body.searchIndexLagMs).toBe(DEFAULT_SEARCH_INDEX_LAG_MS);
      const started = Date.now();
      await client.crm.deals.basicApi.create({ properties: { dealname: 'late' }, associations: [] });
      const first = await client.crm.deals.searchApi.doSearch({ limit: 10 });
      expect(first.total).toBe(0);
      let seenAt = 0;
      await waitFor(
        async () => {
          const found = (await client.crm.deals.searchApi.doSearch({ limit: 10 })).total === 1;
          if (found) seenAt = Date.now();
          return found;
        },
        { what: 'the new deal in search', timeoutMs: DEFAULT_SEARCH_INDEX_LAG_MS + 5000, intervalMs: 250 },
      );
      expect(seenAt - started).toBeGreaterThanOrEqual(DEFAULT_SEARCH_INDEX_LAG_MS);
    });

    it('is configurable through the control API', async () => {
      await control.put('settings', { searchIndexLagMs: 0 });
      await client.crm.deals.basicApi.create({ properties: { dealname: 'now' }, associations: [] });
      expect((await client.crm.deals.searchApi.doSearch({ limit: 10 })).total).toBe(1);
    });
  });

  describe('associations v4', () => {
    async function dealWithContacts(count: number): Promise<string> {
      const deal = await client.crm.deals.basicApi.create({
        properties: { dealname: 'd' },
        associations: [],
      });
      await control.seed({ type: 'contacts', count, properties: { email: 'c{i}@example.com' } });
      const ids = [...Array(count).keys()].map(
        (i) => emulator.state.findByProperty('contacts', 'email', `c${i}@example.com`)!.id,
      );
      await client.crm.associations.v4.batchApi.createDefault('deals', 'contacts', {
        inputs: ids.map((id) => ({ _from: { id: deal.id }, to: { id } })),
      });
      return deal.id;
    }

    it('pages association reads at 500 with paging.next.after, object ids as strings', async () => {
      const dealId = await dealWithContacts(501);
      const first = await raw('GET', `/crm/v4/objects/deals/${dealId}/associations/contacts`);
      expect(first.body.results).toHaveLength(500);
      expect(typeof first.body.results[0].toObjectId).toBe('string');
      const after = first.body.paging.next.after as string;
      const second = await raw('GET', `/crm/v4/objects/deals/${dealId}/associations/contacts?after=${after}`);
      expect(second.body.results).toHaveLength(1);
      expect(second.body.paging).toBeUndefined();

      const batch = await client.crm.associations.v4.batchApi.getPage('deals', 'contacts', {
        inputs: [{ id: dealId }],
      });
      expect(batch.results[0].to).toHaveLength(500);
      const next = batch.results[0].paging!.next!.after;
      const rest = await client.crm.associations.v4.batchApi.getPage('deals', 'contacts', {
        inputs: [{ id: dealId, after: next }],
      });
      expect(rest.results[0].to).toHaveLength(1);
      const all = new Set([...batch.results[0].to, ...rest.results[0].to].map((t) => t.toObjectId));
      expect(all.size).toBe(501);
    });

    it('batch associate/default fails whole on one bad pair, naming it', async () => {
      const deal = await client.crm.deals.basicApi.create({
        properties: { dealname: 'd' },
        associations: [],
      });
      const contact = await client.crm.contacts.basicApi.create({
        properties: { email: 'a@example.com' },
        associations: [],
      });
      const res = await raw('POST', '/crm/v4/associations/deals/contacts/batch/associate/default', {
        inputs: [
          { from: { id: deal.id }, to: { id: contact.id } },
          { from: { id: deal.id }, to: { id: '777777' } },
        ],
      });
      expect(res.status).toBe(404);
      expect(res.body.category).toBe('OBJECT_NOT_FOUND');
      expect(res.body.context).toEqual({ fromObjectId: [deal.id], toObjectId: ['777777'] });
      expect(emulator.state.associatedIds('deals', deal.id, 'contacts')).toEqual([]);
    });

    it('defines association labels and shows them on labelled associations', async () => {
      const deal = await client.crm.deals.basicApi.create({
        properties: { dealname: 'd' },
        associations: [],
      });
      const contact = await client.crm.contacts.basicApi.create({
        properties: { email: 'b@example.com' },
        associations: [],
      });
      const defined = await raw('POST', '/crm/v4/associations/deals/contacts/labels', {
        label: 'Seller',
        name: 'seller',
      });
      const typeId = defined.body.results[0].typeId as number;
      const created = await client.crm.associations.v4.basicApi.create(
        'deals',
        deal.id,
        'contacts',
        contact.id,
        [
          {
            associationCategory: AssociationSpecAssociationCategoryEnum.UserDefined,
            associationTypeId: typeId,
          },
        ],
      );
      expect(created.labels).toEqual(['Seller']);
      expect(created.toObjectId).toBe(contact.id);
      const page = await client.crm.associations.v4.basicApi.getPage('contacts', contact.id, 'deals');
      expect(page.results[0].associationTypes[0]).toEqual(
        expect.objectContaining({ category: 'USER_DEFINED', label: 'Seller' }),
      );
      const labels = await raw('GET', '/crm/v4/associations/deals/contacts/labels');
      expect(labels.body.results.map((l: { label: string | null }) => l.label)).toEqual([null, 'Seller']);
    });
  });

  describe('archiving', () => {
    it('keeps an archived pipeline stage with archived: true and archivedAt, and refuses moves into it', async () => {
      const pipeline = await client.crm.pipelines.pipelinesApi.create('deals', {
        label: 'P',
        displayOrder: 1,
        stages: [
          { label: 'Open', displayOrder: 0, metadata: { probability: '0.1' } },
          { label: 'Old', displayOrder: 1, metadata: { probability: '0.2' } },
        ],
      });
      const old = pipeline.stages[1];
      await client.crm.pipelines.pipelineStagesApi.archive('deals', pipeline.id, old.id);
      const stages = await client.crm.pipelines.pipelineStagesApi.getAll('deals', pipeline.id);
      const archived = stages.results.find((s) => s.id === old.id)!;
      expect(archived.archived).toBe(true);
      expect(archived.archivedAt).toBeInstanceOf(Date);
      expect(stages.results.find((s) => s.id !== old.id)!.archived).toBe(false);
      const moved = await sdkError(
        client.crm.deals.basicApi.create({
          properties: { pipeline: pipeline.id, dealstage: old.id },
          associations: [],
        }),
      );
      expect(moved.code).toBe(400);
    });

    it('moves an archived record to the recycle bin, listed with ?archived=true and archivedAt', async () => {
      const deal = await client.crm.deals.basicApi.create({
        properties: { dealname: 'gone' },
        associations: [],
      });
      await client.crm.deals.basicApi.archive(deal.id);
      const live = await client.crm.deals.basicApi.getPage(10);
      expect(live.results).toHaveLength(0);
      const bin = await client.crm.deals.basicApi.getPage(
        10,
        undefined,
        ['dealname'],
        undefined,
        undefined,
        true,
      );
      expect(bin.results.map((d) => d.id)).toEqual([deal.id]);
      expect(bin.results[0].archived).toBe(true);
      expect(bin.results[0].archivedAt).toBeInstanceOf(Date);
      const one = await raw('GET', `/crm/v3/objects/deals/${deal.id}?archived=true`);
      expect(one.body.archived).toBe(true);
      expect(typeof one.body.archivedAt).toBe('string');
      expect((await raw('GET', `/crm/v3/objects/deals/${deal.id}`)).status).toBe(404);
    });
  });

  describe('scopes', () => {
    it('answers 403 MISSING_SCOPES naming the scope a token lacks, and tells a private app its scopes', async () => {
      await control.put('tokens', { token: 'pat-readonly', scopes: ['crm.objects.deals.read'] });
      const limited = new Client({ accessToken: 'pat-readonly', basePath: emulator.url });
      await limited.crm.deals.basicApi.getPage(1);
      const error = await sdkError(
        limited.crm.deals.basicApi.create({ properties: { dealname: 'x' }, associations: [] }),
      );
      expect(error.code).toBe(403);
      expect(error.body.category).toBe('MISSING_SCOPES');
      const res = await raw('POST', '/crm/v3/properties/deals', { name: 'x' }, 'pat-readonly');
      expect(res.status).toBe(403);
      expect(res.body.errors[0].context.requiredScopes).toEqual(['crm.schemas.deals.write']);
      const info = await raw(
        'POST',
        '/oauth/v2/private-apps/get/access-token-info',
        { tokenKey: 'pat-readonly' },
        'pat-readonly',
      );
      expect(info.body.scopes).toEqual(['crm.objects.deals.read']);
    });
  });

  describe('rate limits by account tier', () => {
    it('sends X-HubSpot-RateLimit-* for Professional (190) by default and for Starter (100) when set', async () => {
      const pro = await raw('GET', '/crm/v3/objects/deals?limit=1');
      expect(pro.headers.get('x-hubspot-ratelimit-max')).toBe('190');
      expect(pro.headers.get('x-hubspot-ratelimit-interval-milliseconds')).toBe('10000');
      expect(Number(pro.headers.get('x-hubspot-ratelimit-remaining'))).toBe(189);
      expect(pro.headers.get('x-hubspot-ratelimit-daily')).not.toBeNull();
      await control.put('settings', { tier: 'starter' });
      const starter = await raw('GET', '/crm/v3/objects/deals?limit=1');
      expect(starter.headers.get('x-hubspot-ratelimit-max')).toBe('100');
      for (let i = 0; i < 99; i++) await raw('GET', '/crm/v3/objects/deals?limit=1');
      const over = await raw('GET', '/crm/v3/objects/deals?limit=1');
      expect(over.status).toBe(429);
      expect(over.body.policyName).toBe('TEN_SECONDLY_ROLLING');
      expect(over.headers.get('x-hubspot-ratelimit-remaining')).toBe('0');
    });
  });
});
