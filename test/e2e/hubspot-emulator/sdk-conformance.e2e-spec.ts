import { Client } from '@hubspot/api-client';
import { AssociationSpecAssociationCategoryEnum } from '@hubspot/api-client/lib/codegen/crm/associations/v4';
import { FilterOperatorEnum } from '@hubspot/api-client/lib/codegen/crm/deals';
import {
  PropertyCreateFieldTypeEnum,
  PropertyCreateTypeEnum,
} from '@hubspot/api-client/lib/codegen/crm/properties';
import { startHubSpotEmulator } from '../../../sandbox/hubspot';
import type { HubSpotEmulator } from '../../../sandbox/hubspot';
import { freePort } from '../../support/free-port';
import { EmulatorControl } from '../crm/emulator-control';

// The official SDK's own calls, unchanged, against the emulator: every success must deserialise
// through the SDK's models and every failure must arrive as the SDK's ApiException.
interface SdkError {
  code: number;
  body: { category?: string; message?: string; correlationId?: string };
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

jest.setTimeout(15_000);

describe('HubSpot emulator conformance with @hubspot/api-client', () => {
  let emulator: HubSpotEmulator;
  let client: Client;
  let control: EmulatorControl;

  beforeAll(async () => {
    emulator = await startHubSpotEmulator({ port: await freePort(), token: 'pat-test', rateLimit: null });
    client = new Client({ accessToken: emulator.token, basePath: emulator.url });
    control = new EmulatorControl(emulator.url);
  });

  afterAll(async () => {
    await emulator.close();
  });

  beforeEach(async () => {
    await fetch(`${emulator.url}/__control/reset`, { method: 'POST' });
  });

  async function defineDealProperty(name: string, unique = false): Promise<void> {
    await client.crm.properties.coreApi.create('deals', {
      name,
      label: name,
      type: PropertyCreateTypeEnum.String,
      fieldType: PropertyCreateFieldTypeEnum.Text,
      groupName: 'dealinformation',
      hasUniqueValue: unique,
    });
  }

  it('refuses a wrong token with HubSpot 401 body', async () => {
    const other = new Client({ accessToken: 'wrong', basePath: emulator.url });
    const error = await sdkError(other.crm.deals.basicApi.getPage(10));
    expect(error.code).toBe(401);
    expect(error.body.category).toBe('INVALID_AUTHENTICATION');
    expect(error.body.correlationId).toEqual(expect.any(String));
  });

  it('creates, reads, updates and pages deals through basicApi', async () => {
    const created = await client.crm.deals.basicApi.create({
      properties: { dealname: 'Oak St', amount: '250000' },
      associations: [],
    });
    expect(created.id).toMatch(/^\d+$/);
    expect(created.createdAt).toBeInstanceOf(Date);
    expect(created.properties.dealname).toBe('Oak St');

    const read = await client.crm.deals.basicApi.getById(created.id, ['dealname', 'amount', 'pipeline']);
    expect(read.properties).toMatchObject({ dealname: 'Oak St', amount: '250000', pipeline: 'default' });
    expect(read.updatedAt).toBeInstanceOf(Date);

    const updated = await client.crm.deals.basicApi.update(created.id, { properties: { amount: '260000' } });
    expect(updated.properties.amount).toBe('260000');

    const page = await client.crm.deals.basicApi.getPage(10, undefined, ['dealname']);
    expect(page.results.map((d) => d.id)).toEqual([created.id]);

    const missing = await sdkError(client.crm.deals.basicApi.getById('999999'));
    expect(missing.code).toBe(404);
    expect(missing.body.category).toBe('OBJECT_NOT_FOUND');
  });

  it('batch creates with 201 and pages every deal through the SDK getAll helper', async () => {
    const created = await client.crm.deals.batchApi.create({
      inputs: [1, 2, 3].map((i) => ({ properties: { dealname: `Batch ${i}` }, associations: [] })),
    });
    expect(created.results).toHaveLength(3);
    expect(created.startedAt).toBeInstanceOf(Date);
    const all = await client.crm.deals.getAll(2, undefined, ['dealname']);
    expect(all.map((d) => d.properties.dealname).sort()).toEqual(['Batch 1', 'Batch 2', 'Batch 3']);
    const pages = (await control.requests()).filter(
      (r) => r.method === 'GET' && r.path === '/crm/v3/objects/deals',
    );
    expect(pages).toHaveLength(2);
  });

  it('names an unknown property and a bad value in a 400 VALIDATION_ERROR', async () => {
    const unknown = await sdkError(
      client.crm.deals.basicApi.create({ properties: { no_such_prop: 'x' }, associations: [] }),
    );
    expect(unknown.code).toBe(400);
    expect(unknown.body.category).toBe('VALIDATION_ERROR');
    expect(unknown.body.message).toContain('no_such_prop');

    const badNumber = await sdkError(
      client.crm.deals.basicApi.create({ properties: { amount: 'lots' }, associations: [] }),
    );
    expect(badNumber.body.message).toContain('amount');
  });

  it('takes a date-time only as HubSpot documents it (epoch milliseconds or ISO 8601), stored as ISO UTC', async () => {
    for (const [closedate, stored] of [
      ['1795913528123', '2026-11-29T00:52:08.123Z'],
      ['2026-11-29T00:52:08.123Z', '2026-11-29T00:52:08.123Z'],
      ['2026-11-28T18:52:08.123-06:00', '2026-11-29T00:52:08.123Z'],
    ]) {
      const deal = await client.crm.deals.basicApi.create({ properties: { closedate }, associations: [] });
      const read = await client.crm.deals.basicApi.getById(deal.id, ['closedate']);
      expect([closedate, read.properties.closedate]).toEqual([closedate, stored]);
    }
    // PostgreSQL's text form: a space for the T and an hour-only offset, which ISO 8601 does not write.
    const refused = await sdkError(
      client.crm.deals.basicApi.create({
        properties: { closedate: '2026-11-29 00:52:08.123000+00' },
        associations: [],
      }),
    );
    expect(refused.code).toBe(400);
    expect(refused.body.category).toBe('VALIDATION_ERROR');
    expect(refused.body.message).toContain('closedate');
  });

  it('enforces unique contact emails with 409 CONFLICT', async () => {
    const first = await client.crm.contacts.basicApi.create({
      properties: { email: 'a@example.com' },
      associations: [],
    });
    const error = await sdkError(
      client.crm.contacts.basicApi.create({ properties: { email: 'a@example.com' }, associations: [] }),
    );
    expect(error.code).toBe(409);
    expect(error.body.message).toContain(`Existing ID: ${first.id}`);
  });

  it('creates properties and groups through coreApi and groupsApi', async () => {
    const group = await client.crm.properties.groupsApi.create('deals', {
      name: 'cash_offer',
      label: 'Cash Offer',
    });
    expect(group.name).toBe('cash_offer');
    const prop = await client.crm.properties.coreApi.create('deals', {
      name: 'cash_offer_request_id',
      label: 'Request id',
      type: PropertyCreateTypeEnum.String,
      fieldType: PropertyCreateFieldTypeEnum.Text,
      groupName: 'cash_offer',
      hasUniqueValue: true,
    });
    expect(prop.hasUniqueValue).toBe(true);
    expect(prop.createdAt).toBeInstanceOf(Date);
    const all = await client.crm.properties.coreApi.getAll('deals');
    expect(all.results.map((p) => p.name)).toContain('cash_offer_request_id');
    const groups = await client.crm.properties.groupsApi.getAll('deals');
    expect(groups.results.map((g) => g.name)).toContain('cash_offer');
    const again = await sdkError(
      client.crm.properties.coreApi.create('deals', {
        name: 'cash_offer_request_id',
        label: 'x',
        type: PropertyCreateTypeEnum.String,
        fieldType: PropertyCreateFieldTypeEnum.Text,
        groupName: 'cash_offer',
      }),
    );
    expect(again.code).toBe(409);
  });

  it('lists the default pipeline and creates pipelines and stages', async () => {
    const before = await client.crm.pipelines.pipelinesApi.getAll('deals');
    expect(before.results.map((p) => p.id)).toContain('default');
    const created = await client.crm.pipelines.pipelinesApi.create('deals', {
      label: 'Cash offers',
      displayOrder: 1,
      stages: [{ label: 'Incoming', displayOrder: 0, metadata: { probability: '0.1' } }],
    });
    expect(created.createdAt).toBeInstanceOf(Date);
    expect(created.stages[0].label).toBe('Incoming');
    const stage = await client.crm.pipelines.pipelineStagesApi.create('deals', created.id, {
      label: 'Accepted',
      displayOrder: 1,
      metadata: { probability: '1.0', isClosed: 'true' },
    });
    const stages = await client.crm.pipelines.pipelineStagesApi.getAll('deals', created.id);
    expect(stages.results.map((s) => s.id)).toEqual([created.stages[0].id, stage.id]);
    const deal = await client.crm.deals.basicApi.create({
      properties: { dealname: 'x', pipeline: created.id, dealstage: stage.id },
      associations: [],
    });
    expect(deal.properties.dealstage).toBe(stage.id);
    const wrongStage = await sdkError(
      client.crm.deals.basicApi.create({
        properties: { pipeline: created.id, dealstage: 'closedwon' },
        associations: [],
      }),
    );
    expect(wrongStage.body.message).toContain('dealstage');
  });

  it('batch upserts with _new, reads and updates, and fails a batch upsert whole on one bad input', async () => {
    await defineDealProperty('cash_offer_request_id', true);
    const first = await client.crm.deals.batchApi.upsert({
      inputs: [
        { id: 'r-1', idProperty: 'cash_offer_request_id', properties: { dealname: 'one' } },
        { id: 'r-2', idProperty: 'cash_offer_request_id', properties: { dealname: 'two' } },
      ],
    });
    expect(first.results.map((r) => r._new)).toEqual([true, true]);
    expect(first.results[0].createdAt).toBeInstanceOf(Date);
    expect(first.completedAt).toBeInstanceOf(Date);
    const second = await client.crm.deals.batchApi.upsert({
      inputs: [{ id: 'r-1', idProperty: 'cash_offer_request_id', properties: { dealname: 'one again' } }],
    });
    expect(second.results[0]._new).toBe(false);
    expect(second.results[0].id).toBe(first.results[0].id);

    // HubSpot's batch upsert fails whole on one invalid input, trace ids or not, and writes nothing.
    const mixed = await sdkError(
      client.crm.deals.batchApi.upsert({
        inputs: [
          {
            id: 'r-3',
            idProperty: 'cash_offer_request_id',
            properties: { dealname: 'fine' },
            objectWriteTraceId: 't3',
          },
          {
            id: 'r-4',
            idProperty: 'cash_offer_request_id',
            properties: { amount: 'NaN!' },
            objectWriteTraceId: 't4',
          },
        ],
      }),
    );
    expect(mixed.code).toBe(400);
    expect(mixed.body.category).toBe('VALIDATION_ERROR');
    expect((mixed.body as { context?: unknown }).context).toEqual({ ids: ['r-4'], inputIndex: ['1'] });
    expect(emulator.state.findByProperty('deals', 'cash_offer_request_id', 'r-3')).toBeUndefined();

    const read = await client.crm.deals.batchApi.read({
      inputs: [{ id: first.results[0].id }, { id: '424242' }],
      properties: ['dealname'],
      propertiesWithHistory: [],
    });
    expect(read.results.map((r) => r.properties.dealname)).toEqual(['one again']);
    expect('numErrors' in read && read.numErrors).toBe(1);

    const updated = await client.crm.deals.batchApi.update({
      inputs: [{ id: first.results[1].id, properties: { amount: '5' } }],
    });
    expect(updated.results[0].properties.amount).toBe('5');
  });

  it('searches with filters, one sort and after paging', async () => {
    // Filter semantics, not the indexing lag, are under test here.
    await control.put('settings', { searchIndexLagMs: 0 });
    for (let i = 0; i < 5; i++) {
      await client.crm.deals.basicApi.create({
        properties: { dealname: `d${i}`, amount: String(i * 10) },
        associations: [],
      });
    }
    const page1 = await client.crm.deals.searchApi.doSearch({
      filterGroups: [
        { filters: [{ propertyName: 'amount', operator: FilterOperatorEnum.Gte, value: '10' }] },
      ],
      sorts: ['-amount'],
      properties: ['dealname', 'amount'],
      limit: 2,
      after: '0',
    });
    expect(page1.total).toBe(4);
    expect(page1.results.map((d) => d.properties.amount)).toEqual(['40', '30']);
    expect(page1.results[0].updatedAt).toBeInstanceOf(Date);
    const page2 = await client.crm.deals.searchApi.doSearch({
      filterGroups: [
        { filters: [{ propertyName: 'amount', operator: FilterOperatorEnum.Gte, value: '10' }] },
      ],
      sorts: ['-amount'],
      properties: ['amount'],
      limit: 2,
      after: page1.paging!.next!.after,
    });
    expect(page2.results.map((d) => d.properties.amount)).toEqual(['20', '10']);
    expect(page2.paging).toBeUndefined();
    const tooBig = await sdkError(client.crm.deals.searchApi.doSearch({ limit: 201 }));
    expect(tooBig.code).toBe(400);
  });

  it('stops search paging at 10,000 results with a 400 beyond', async () => {
    await control.put('settings', { searchIndexLagMs: 0 });
    await control.seed({ type: 'deals', count: 10_050, properties: { dealname: 'Seeded {i}' } });
    const last = await client.crm.deals.searchApi.doSearch({
      limit: 200,
      after: '9900',
      properties: ['dealname'],
    });
    expect(last.total).toBe(10_050);
    expect(last.results).toHaveLength(100);
    expect(last.paging).toBeUndefined();
    const beyond = await sdkError(client.crm.deals.searchApi.doSearch({ limit: 200, after: '10000' }));
    expect(beyond.code).toBe(400);
    expect(beyond.body.category).toBe('VALIDATION_ERROR');
  });

  it('associates through v4 basic and batch calls and reads them back', async () => {
    const deal = await client.crm.deals.basicApi.create({ properties: { dealname: 'x' }, associations: [] });
    const c1 = await client.crm.contacts.basicApi.create({
      properties: { email: 'one@example.com' },
      associations: [],
    });
    const c2 = await client.crm.contacts.basicApi.create({
      properties: { email: 'two@example.com' },
      associations: [],
    });
    const def = await client.crm.associations.v4.basicApi.createDefault('deals', deal.id, 'contacts', c1.id);
    expect(def.results[0].associationSpec.associationTypeId).toBe(3);
    const labelled = await client.crm.associations.v4.basicApi.create('deals', deal.id, 'contacts', c2.id, [
      { associationCategory: AssociationSpecAssociationCategoryEnum.HubspotDefined, associationTypeId: 3 },
    ]);
    expect(String(labelled.toObjectId)).toBe(c2.id);
    const page = await client.crm.associations.v4.basicApi.getPage('deals', deal.id, 'contacts');
    expect(page.results.map((r) => String(r.toObjectId)).sort()).toEqual([c1.id, c2.id].sort());

    const deal2 = await client.crm.deals.basicApi.create({ properties: { dealname: 'y' }, associations: [] });
    const batch = await client.crm.associations.v4.batchApi.createDefault('deals', 'contacts', {
      inputs: [{ _from: { id: deal2.id }, to: { id: c1.id } }],
    });
    expect(batch.results).toHaveLength(1);
    const read = await client.crm.associations.v4.batchApi.getPage('contacts', 'deals', {
      inputs: [{ id: c1.id }, { id: c2.id }],
    });
    const byContact = Object.fromEntries(
      read.results.map((r) => [r._from.id, r.to.map((t) => String(t.toObjectId)).sort()]),
    );
    expect(byContact).toEqual({ [c1.id]: [deal.id, deal2.id].sort(), [c2.id]: [deal.id] });
  });

  it('creates a note attached to a deal', async () => {
    const deal = await client.crm.deals.basicApi.create({ properties: { dealname: 'x' }, associations: [] });
    const note = await client.crm.objects.notes.basicApi.create({
      properties: { hs_note_body: 'Offer accepted', hs_timestamp: new Date().toISOString() },
      associations: [
        {
          to: { id: deal.id },
          types: [
            {
              associationCategory: AssociationSpecAssociationCategoryEnum.HubspotDefined,
              associationTypeId: 214,
            },
          ],
        },
      ],
    });
    expect(note.createdAt).toBeInstanceOf(Date);
    expect(emulator.state.associatedIds('deals', deal.id, 'notes')).toEqual([note.id]);
  });

  it('sends 429 bodies with the policy name and rate-limit headers', async () => {
    await fetch(`${emulator.url}/__control/faults`, { method: 'PUT', body: JSON.stringify({ burst429: 1 }) });
    const error = await sdkError(client.crm.deals.basicApi.getPage(1));
    expect(error.code).toBe(429);
    expect(error.body.message).toBe('You have reached your ten_secondly_rolling limit.');
    const log = (await (await fetch(`${emulator.url}/__control/requests`)).json()) as {
      requests: { status: number }[];
    };
    expect(log.requests.map((r) => r.status)).toContain(429);
  });

  it('lets the SDK retry a secondly search limit by its message', async () => {
    const limited = await startHubSpotEmulator({
      port: await freePort(),
      token: 'pat-test',
      searchPerSecond: 1,
    });
    const retrying = new Client({
      accessToken: 'pat-test',
      basePath: limited.url,
      numberOfApiCallRetries: 2,
    });
    const errorLog = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      await retrying.crm.deals.searchApi.doSearch({ limit: 1 });
      const second = await retrying.crm.deals.searchApi.doSearch({ limit: 1 });
      expect(second.total).toBe(0);
      expect(errorLog).toHaveBeenCalledWith(expect.stringContaining('[429]'));
    } finally {
      errorLog.mockRestore();
      await limited.close();
      client = new Client({ accessToken: emulator.token, basePath: emulator.url });
    }
  });
});
