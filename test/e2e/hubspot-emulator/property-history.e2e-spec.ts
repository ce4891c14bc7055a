import { Client } from '@hubspot/api-client';
import { EMULATOR_INTEGRATION_ID, startHubSpotEmulator } from '../../../sandbox/hubspot';
import type { HubSpotEmulator } from '../../../sandbox/hubspot';
import { freePort } from '../../support/free-port';
import { EmulatorControl } from '../crm/emulator-control';

// Property history as HubSpot keeps and serves it (`propertiesWithHistory`; docs/crm-hubspot.md,
// "The emulator"), through the official SDK and over raw HTTP.
interface SdkError {
  code: number;
  body: { category?: string; message?: string };
}

async function sdkError(promise: Promise<unknown>): Promise<SdkError> {
  try {
    await promise;
  } catch (error) {
    return error as SdkError;
  }
  throw new Error('expected the SDK to throw');
}

// Raw HTTP answers are read field by field in the assertions.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type RawJson = Record<string, any>;

const API = { sourceType: 'INTEGRATION', sourceId: EMULATOR_INTEGRATION_ID };

jest.setTimeout(20_000);

describe('HubSpot emulator: property history', () => {
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
    await control.reset();
  });

  async function raw(method: string, path: string, body?: unknown) {
    const res = await fetch(`${emulator.url}${path}`, {
      method,
      headers: { Authorization: `Bearer ${emulator.token}`, 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : {}) as RawJson };
  }

  async function uiChange(type: string, id: string, body: unknown) {
    const res = await fetch(`${emulator.url}/__control/objects/${type}/${id}/ui-change`, {
      method: 'POST',
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as RawJson };
  }

  async function queuedUiChanges(): Promise<RawJson[]> {
    const res = await fetch(`${emulator.url}/__control/ui-changes`);
    return ((await res.json()) as { uiChanges: RawJson[] }).uiChanges;
  }

  async function createDeal(dealstage = 'appointmentscheduled'): Promise<string> {
    const deal = await client.crm.deals.basicApi.create({
      properties: { dealname: 'Elm St', dealstage },
      associations: [],
    });
    return deal.id;
  }

  it('keeps every API write newest first, and nothing for a value written again unchanged', async () => {
    const id = await createDeal();
    await client.crm.deals.basicApi.update(id, { properties: { dealstage: 'qualifiedtobuy' } });
    await client.crm.deals.basicApi.update(id, { properties: { dealstage: 'qualifiedtobuy' } });
    const deal = await client.crm.deals.basicApi.getById(id, ['dealstage'], ['dealstage', 'dealname']);
    const stages = deal.propertiesWithHistory!.dealstage;
    expect(stages.map((e) => [e.value, e.sourceType, e.sourceId])).toEqual([
      ['qualifiedtobuy', API.sourceType, API.sourceId],
      ['appointmentscheduled', API.sourceType, API.sourceId],
    ]);
    // The SDK reads the timestamps as Dates.
    expect(stages[0].timestamp).toBeInstanceOf(Date);
    expect(stages[0].timestamp.getTime()).toBeGreaterThanOrEqual(stages[1].timestamp.getTime());
    expect(deal.propertiesWithHistory!.dealname.map((e) => e.value)).toEqual(['Elm St']);
  });

  it('serves history in a batch read through the SDK, and no history key when none is asked', async () => {
    const id = await createDeal();
    const withHistory = await client.crm.deals.batchApi.read({
      inputs: [{ id }],
      properties: ['dealstage'],
      propertiesWithHistory: ['dealstage'],
    });
    const [result] = withHistory.results;
    expect(result.propertiesWithHistory!.dealstage[0].timestamp).toBeInstanceOf(Date);
    expect(result.propertiesWithHistory!.dealstage[0].sourceType).toBe('INTEGRATION');
    const without = await raw('POST', '/crm/v3/objects/deals/batch/read', {
      inputs: [{ id }],
      properties: ['dealstage'],
      propertiesWithHistory: [],
    });
    expect(without.body.results[0]).not.toHaveProperty('propertiesWithHistory');
  });

  it('takes at most 50 inputs in a batch read with history (400 VALIDATION_ERROR beyond), any number without', async () => {
    await control.seed({ type: 'deals', count: 51, properties: { dealname: 'Seeded {i}' } });
    const ids = Array.from({ length: 51 }, (_, i) => ({ id: String(10001 + i) }));
    const tooMany = await sdkError(
      client.crm.deals.batchApi.read({ inputs: ids, properties: [], propertiesWithHistory: ['dealname'] }),
    );
    expect(tooMany.code).toBe(400);
    expect(tooMany.body.category).toBe('VALIDATION_ERROR');
    expect(tooMany.body.message).toBe(
      'The maximum number of inputs supported in a batch request for property histories is 50. Please reduce the number of items and try again',
    );
    const fifty = await client.crm.deals.batchApi.read({
      inputs: ids.slice(0, 50),
      properties: [],
      propertiesWithHistory: ['dealname'],
    });
    expect(fifty.results).toHaveLength(50);
    // Seeded records stand for data imported into the portal.
    expect(fifty.results[0].propertiesWithHistory!.dealname[0].sourceType).toBe('IMPORT');
    const all = await client.crm.deals.batchApi.read({
      inputs: ids,
      properties: [],
      propertiesWithHistory: [],
    });
    expect(all.results).toHaveLength(51);
  });

  it('reads propertiesWithHistory from getById and getPage as repeated or comma-joined keys', async () => {
    const id = await createDeal();
    const one = await raw('GET', `/crm/v3/objects/deals/${id}?propertiesWithHistory=dealstage,amount`);
    expect(Object.keys(one.body.propertiesWithHistory as RawJson)).toEqual(['dealstage', 'amount']);
    // A property never set (or unknown) has an empty history.
    expect(one.body.propertiesWithHistory.amount).toEqual([]);
    expect(one.body.propertiesWithHistory.dealstage).toEqual([
      { value: 'appointmentscheduled', timestamp: expect.any(String), ...API },
    ]);
    const page = await raw(
      'GET',
      '/crm/v3/objects/deals?propertiesWithHistory=dealstage&propertiesWithHistory=dealname',
    );
    expect(Object.keys(page.body.results[0].propertiesWithHistory as RawJson)).toEqual([
      'dealstage',
      'dealname',
    ]);
    const sdkPage = await client.crm.deals.basicApi.getPage(10, undefined, undefined, ['dealstage']);
    expect(sdkPage.results[0].propertiesWithHistory!.dealstage[0].value).toBe('appointmentscheduled');
    const plain = await raw('GET', `/crm/v3/objects/deals/${id}`);
    expect(plain.body).not.toHaveProperty('propertiesWithHistory');
  });

  describe('acting as a person in the UI', () => {
    const UI_7 = { sourceType: 'CRM_UI', sourceId: 'userId:7', updatedByUserId: 7 };

    it('writes now as that user: 200 with the record, history after API create, update and UI change', async () => {
      const id = await createDeal();
      await client.crm.deals.basicApi.update(id, { properties: { dealstage: 'qualifiedtobuy' } });
      const changed = await uiChange('deals', id, {
        properties: { dealstage: 'presentationscheduled', dealname: 'Elm St' },
        userId: 7,
      });
      expect(changed.status).toBe(200);
      expect(changed.body).toMatchObject({ id, properties: { dealstage: 'presentationscheduled' } });
      expect(changed.body.associations).toBeDefined();
      const deal = await client.crm.deals.basicApi.getById(id, [], ['dealstage', 'dealname']);
      const stages = deal.propertiesWithHistory!.dealstage;
      expect(stages.map((e) => [e.value, e.sourceType, e.sourceId, e.updatedByUserId])).toEqual([
        ['presentationscheduled', UI_7.sourceType, UI_7.sourceId, 7],
        ['qualifiedtobuy', API.sourceType, API.sourceId, undefined],
        ['appointmentscheduled', API.sourceType, API.sourceId, undefined],
      ]);
      // The UI wrote the same name again: no new entry.
      expect(deal.propertiesWithHistory!.dealname.map((e) => e.sourceType)).toEqual(['INTEGRATION']);
      // userId defaults to 1.
      await uiChange('deals', id, { properties: { dealstage: 'closedwon' } });
      const again = await raw('GET', `/crm/v3/objects/deals/${id}?propertiesWithHistory=dealstage`);
      expect(again.body.propertiesWithHistory.dealstage[0]).toEqual({
        value: 'closedwon',
        timestamp: expect.any(String),
        sourceType: 'CRM_UI',
        sourceId: 'userId:1',
        updatedByUserId: 1,
      });
    });

    it('lands a queued change just before the matching call: the API write wins, the history shows both', async () => {
      const id = await createDeal();
      const queued = await uiChange('deals', id, {
        properties: { dealstage: 'presentationscheduled' },
        userId: 7,
        beforeCall: 'POST /crm/v3/objects/deals/batch/update',
      });
      expect(queued).toEqual({
        status: 202,
        body: { queued: true, beforeCall: 'POST /crm/v3/objects/deals/batch/update', skip: 0 },
      });
      // Another call does not set it off.
      await client.crm.deals.basicApi.getById(id, ['dealstage']);
      expect(await queuedUiChanges()).toEqual([
        {
          type: 'deals',
          id,
          properties: { dealstage: 'presentationscheduled' },
          userId: 7,
          beforeCall: 'POST /crm/v3/objects/deals/batch/update',
          skip: 0,
          queuedAt: expect.any(String),
        },
      ]);
      await client.crm.deals.batchApi.update({ inputs: [{ id, properties: { dealstage: 'closedwon' } }] });
      expect(await queuedUiChanges()).toEqual([]);
      const [deal] = (
        await client.crm.deals.batchApi.read({
          inputs: [{ id }],
          properties: ['dealstage'],
          propertiesWithHistory: ['dealstage'],
        })
      ).results;
      expect(deal.properties.dealstage).toBe('closedwon');
      expect(deal.propertiesWithHistory!.dealstage.map((e) => [e.value, e.sourceType])).toEqual([
        ['closedwon', 'INTEGRATION'],
        ['presentationscheduled', 'CRM_UI'],
        ['appointmentscheduled', 'INTEGRATION'],
      ]);
      // Applied once: the next matching call finds nothing waiting.
      await client.crm.deals.batchApi.update({ inputs: [{ id, properties: { dealstage: 'closedlost' } }] });
      expect(emulator.state.get('deals', id)!.history.dealstage).toHaveLength(4);
    });

    it('with skip, lets that many matching calls pass first: the change lands before the next one', async () => {
      const id = await createDeal();
      await uiChange('deals', id, {
        properties: { dealstage: 'presentationscheduled' },
        beforeCall: 'POST /crm/v3/objects/deals/batch/update',
        skip: 1,
      });
      await client.crm.deals.batchApi.update({
        inputs: [{ id, properties: { dealstage: 'qualifiedtobuy' } }],
      });
      expect(emulator.state.get('deals', id)!.properties.dealstage).toBe('qualifiedtobuy');
      await client.crm.deals.batchApi.update({ inputs: [{ id, properties: { dealstage: 'closedwon' } }] });
      expect(emulator.state.get('deals', id)!.history.dealstage.map((e) => e.value)).toEqual([
        'closedwon',
        'presentationscheduled',
        'qualifiedtobuy',
        'appointmentscheduled',
      ]);
      expect(
        (await uiChange('deals', id, { properties: { dealname: 'x' }, skip: 1 })).body.message,
      ).toContain('skip needs beforeCall');
      expect(
        (await uiChange('deals', id, { properties: { dealname: 'x' }, beforeCall: 'POST', skip: -1 })).status,
      ).toBe(400);
    });

    it('drops a queued change whose record is gone by the time of the call', async () => {
      const id = await createDeal();
      await uiChange('deals', id, {
        properties: { dealstage: 'qualifiedtobuy' },
        beforeCall: ['POST /crm/v3/objects/deals/batch/read'],
      });
      await client.crm.deals.basicApi.archive(id);
      const other = await createDeal();
      await client.crm.deals.batchApi.read({
        inputs: [{ id: other }],
        properties: [],
        propertiesWithHistory: [],
      });
      expect(await queuedUiChanges()).toEqual([]);
    });

    it('forgets queued changes on reset', async () => {
      const id = await createDeal();
      await uiChange('deals', id, { properties: { dealstage: 'qualifiedtobuy' }, beforeCall: 'PATCH /crm' });
      expect(await queuedUiChanges()).toHaveLength(1);
      await control.reset();
      expect(await queuedUiChanges()).toEqual([]);
    });

    it('answers 400 naming the field for a bad body, 404 for an unknown record', async () => {
      const id = await createDeal();
      const badValue = await uiChange('deals', id, { properties: { amount: 'lots' } });
      expect(badValue.status).toBe(400);
      expect(badValue.body.category).toBe('VALIDATION_ERROR');
      expect(badValue.body.errors[0].context).toEqual({ propertyName: ['amount'] });
      const badStage = await uiChange('deals', id, {
        properties: { dealstage: 'nowhere' },
        beforeCall: 'POST',
      });
      expect(badStage.status).toBe(400);
      expect(badStage.body.message).toContain('dealstage');
      expect((await uiChange('deals', id, {})).body.message).toContain('properties');
      expect(
        (await uiChange('deals', id, { properties: { dealname: 'x' }, userId: 'me' })).body.message,
      ).toContain('userId');
      const badCall = await uiChange('deals', id, { properties: { dealname: 'x' }, beforeCall: 5 });
      expect(badCall.status).toBe(400);
      expect(badCall.body.message).toContain('beforeCall');
      expect((await uiChange('deals', '999991', { properties: { dealname: 'x' } })).status).toBe(404);
      expect(await queuedUiChanges()).toEqual([]);
      expect(emulator.state.get('deals', id)!.properties.dealname).toBe('Elm St');
    });
  });
});
