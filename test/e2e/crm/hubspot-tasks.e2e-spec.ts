import { Client } from '@hubspot/api-client';
import { AssociationSpecAssociationCategoryEnum } from '@hubspot/api-client/lib/codegen/crm/associations/v4';
import { CrmError, VendorNeutralCrmPort, type CrmTaskInput } from '../../../src/crm';
import { HubSpotCrmAdapter, hubSpotVendorProfile } from '../../../src/crm/hubspot';
import { startHubSpotEmulator } from '../../../sandbox/hubspot';
import type { HubSpotEmulator } from '../../../sandbox/hubspot';
import { freePort } from '../../support/free-port';
import { waitFor } from '../../support/wait-for';
import { EmulatorControl } from './emulator-control';

// The port's task operations on HubSpot (createTask, findTasks, completeTask), through the
// vendor-neutral port as flows call them, against the emulator's tasks (HubSpot's tasks guide).
describe('HubSpotCrmAdapter tasks against the HubSpot emulator', () => {
  let emulator: HubSpotEmulator;
  let control: EmulatorControl;
  let adapter: HubSpotCrmAdapter;
  let port: VendorNeutralCrmPort;
  let sdk: Client;

  const build = (extra: Partial<ConstructorParameters<typeof HubSpotCrmAdapter>[0]> = {}) =>
    new HubSpotCrmAdapter({
      accessToken: 'pat-crm',
      basePath: emulator.url,
      rateLimit: { max: 10_000, intervalMs: 1000 },
      searchRateLimit: { max: 1000, intervalMs: 1000 },
      retryBaseDelayMs: 10,
      ...extra,
    });

  beforeAll(async () => {
    emulator = await startHubSpotEmulator({ port: await freePort(), token: 'pat-crm', rateLimit: null });
    control = new EmulatorControl(emulator.url);
    sdk = new Client({ accessToken: 'pat-crm', basePath: emulator.url });
  });

  afterAll(async () => {
    await emulator.close();
  });

  beforeEach(async () => {
    await control.reset();
    adapter = build();
    port = new VendorNeutralCrmPort(adapter, hubSpotVendorProfile(new Map()));
  });

  const newDeal = async (): Promise<string> =>
    (await sdk.crm.deals.basicApi.create({ properties: { dealname: 'Offer 7012' }, associations: [] })).id;

  const input = (dealId: string, extra: Partial<CrmTaskInput> = {}): CrmTaskInput => ({
    key: 'offer:7012:lead:24h',
    about: { kind: 'deal', id: dealId },
    subject: 'Offer 7012 from Jane Buyer, $250,000, expires Thu 14:00',
    body: 'Decide within 24 h.',
    dueAt: new Date('2026-11-26T14:00:00Z'),
    ...extra,
  });

  it('createTask makes a task on the deal, due at dueAt, assigned to the owner, the key in its notes', async () => {
    const dealId = await newDeal();
    const { id } = await port.createTask(input(dealId, { ownerId: '64492917' }));
    const stored = emulator.state.get('tasks', id)!;
    expect(stored.properties).toMatchObject({
      hs_task_subject: 'Offer 7012 from Jane Buyer, $250,000, expires Thu 14:00',
      hs_task_body: 'Decide within 24 h.\n\n[cash-offer-sync: offer:7012:lead:24h]',
      hs_timestamp: '2026-11-26T14:00:00.000Z',
      hs_task_status: 'NOT_STARTED',
      hubspot_owner_id: '64492917',
    });
    expect(emulator.state.associatedIds('tasks', id, 'deals')).toEqual([dealId]);
    // One call: the task and its association together.
    const calls = (await control.requests()).filter((r) => r.path.includes('/tasks'));
    expect(calls.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /crm/v3/objects/tasks']);
    // No owner given: HubSpot's default (none set by the daemon).
    const other = await port.createTask(input(dealId, { key: 'offer:7012:lead:1h' }));
    expect(emulator.state.get('tasks', other.id)!.properties.hubspot_owner_id).toBeUndefined();
  });

  it("createTask for the owner of a record assigns the listing deal's hubspot_owner_id; no owner, or one HubSpot refuses, leaves it unassigned", async () => {
    const offerRecord = await newDeal();
    const listing = await newDeal();
    await sdk.crm.deals.basicApi.update(listing, { properties: { hubspot_owner_id: '9001' } });
    const owned = await port.createTask(input(offerRecord, { ownerOf: { kind: 'deal', id: listing } }));
    expect(emulator.state.get('tasks', owned.id)!.properties.hubspot_owner_id).toBe('9001');
    // The broker's explicit owner wins over the listing's.
    const broker = await port.createTask(
      input(offerRecord, {
        key: 'offer:7012:escalation',
        ownerId: '64492917',
        ownerOf: { kind: 'deal', id: listing },
      }),
    );
    expect(emulator.state.get('tasks', broker.id)!.properties.hubspot_owner_id).toBe('64492917');

    const unowned = await newDeal();
    const none = await port.createTask(
      input(offerRecord, { key: 'offer:7012:lead:2h', ownerOf: { kind: 'deal', id: unowned } }),
    );
    expect(emulator.state.get('tasks', none.id)!.properties.hubspot_owner_id).toBeUndefined();

    // The listing's owner left the portal: the deal still names them, HubSpot refuses them on a task.
    emulator.owners.deactivate('9001');
    const refused = await port.createTask(
      input(offerRecord, { key: 'counter:7012:lead:2h', ownerOf: { kind: 'deal', id: listing } }),
    );
    expect(emulator.state.get('tasks', refused.id)!.properties.hubspot_owner_id).toBeUndefined();
    expect((await port.findTasks({ kind: 'deal', id: offerRecord })).map((t) => t.key).sort()).toEqual([
      'counter:7012:lead:2h',
      'offer:7012:escalation',
      'offer:7012:lead:24h',
      'offer:7012:lead:2h',
    ]);
  });

  it('createTask calls beforeSend as the request leaves, and sends nothing when it refuses (a drain that lost the command)', async () => {
    const dealId = await newDeal();
    const calls: string[] = [];
    const sent = await port.createTask(
      input(dealId, { beforeSend: () => Promise.resolve(void calls.push('beforeSend')) }),
    );
    expect(calls).toEqual(['beforeSend']);
    const refused = new Error('taken by another drain');
    await expect(
      port.createTask(
        input(dealId, { key: 'offer:7012:lead:1h', beforeSend: () => Promise.reject(refused) }),
      ),
    ).rejects.toBe(refused);
    expect((await port.findTasks({ kind: 'deal', id: dealId })).map((t) => t.id)).toEqual([sent.id]);
  });

  it('createTask says so when a request did nothing and the task goes again: after each 429, and after an owner HubSpot refused', async () => {
    const dealId = await newDeal();
    const calls: string[] = [];
    const hooks = {
      beforeSend: () => Promise.resolve(void calls.push('beforeSend')),
      refusedBeforeRetry: (refusal: string) => Promise.resolve(void calls.push(`refused: ${refusal}`)),
    };
    await control.put('faults', { burst429: 2 });
    const retried = await port.createTask(input(dealId, hooks));
    expect(calls.map((c) => c.replace(/:.*/s, ''))).toEqual([
      'beforeSend',
      'refused',
      'beforeSend',
      'refused',
      'beforeSend',
    ]);
    expect(calls[1]).toMatch(/429|rate/i);

    // The listing's owner left the portal: the create refused for its owner goes again without one.
    calls.length = 0;
    const listing = await newDeal();
    await sdk.crm.deals.basicApi.update(listing, { properties: { hubspot_owner_id: '9001' } });
    emulator.owners.deactivate('9001');
    const unowned = await port.createTask(
      input(dealId, { ...hooks, key: 'offer:7012:escalation', ownerOf: { kind: 'deal', id: listing } }),
    );
    expect(calls.map((c) => c.replace(/:.*/s, ''))).toEqual(['beforeSend', 'refused', 'beforeSend']);
    expect((await port.findTasks({ kind: 'deal', id: dealId })).map((t) => t.id).sort()).toEqual(
      [retried.id, unowned.id].sort(),
    );
  });

  it('findTasks reads the key back, and shows tasks an agent made with key null, and no other deal’s', async () => {
    const dealId = await newDeal();
    const otherDeal = await newDeal();
    const ours = await port.createTask(input(dealId));
    await port.createTask(input(otherDeal, { key: 'offer:9:lead:24h' }));
    const agents = await sdk.crm.objects.tasks.basicApi.create({
      properties: { hs_timestamp: '2026-11-27T10:00:00Z', hs_task_subject: 'Call Jane', hs_task_body: 'x' },
      associations: [
        {
          to: { id: dealId },
          types: [
            {
              associationCategory: AssociationSpecAssociationCategoryEnum.HubspotDefined,
              associationTypeId: 216,
            },
          ],
        },
      ],
    });
    const tasks = await port.findTasks({ kind: 'deal', id: dealId });
    expect(tasks.sort((a, b) => Number(a.id) - Number(b.id))).toEqual([
      {
        id: ours.id,
        key: 'offer:7012:lead:24h',
        completed: false,
        dueAt: new Date('2026-11-26T14:00:00Z'),
        subject: 'Offer 7012 from Jane Buyer, $250,000, expires Thu 14:00',
      },
      {
        id: agents.id,
        key: null,
        completed: false,
        dueAt: new Date('2026-11-27T10:00:00Z'),
        subject: 'Call Jane',
      },
    ]);
    expect(await port.findTasks({ kind: 'deal', id: '999999' })).toEqual([]);
  });

  it('completeTask marks the task completed; twice is fine, and so is a deleted task', async () => {
    const dealId = await newDeal();
    const { id } = await port.createTask(input(dealId));
    await port.completeTask(id);
    await port.completeTask(id);
    expect(emulator.state.get('tasks', id)!.properties.hs_task_status).toBe('COMPLETED');
    expect((await port.findTasks({ kind: 'deal', id: dealId }))[0].completed).toBe(true);
    await sdk.crm.objects.tasks.basicApi.archive(id);
    await expect(port.completeTask(id)).resolves.toBeUndefined();
  });

  it('a create whose answer was lost is not sent again, and findTasks finds the task it made by its key', async () => {
    const dealId = await newDeal();
    const impatient = new VendorNeutralCrmPort(
      build({ requestTimeoutMs: 100 }),
      hubSpotVendorProfile(new Map()),
    );
    await control.put('faults', { latencyMs: 400 });
    const lost = await impatient.createTask(input(dealId)).catch((error: unknown) => error);
    expect(lost).toBeInstanceOf(CrmError);
    expect((lost as CrmError).code).toBe('OUTCOME_UNKNOWN');
    await control.put('faults', { latencyMs: 0 });
    await waitFor(async () => (await port.findTasks({ kind: 'deal', id: dealId })).length > 0, {
      what: "the deal's task",
    });
    const found = await port.findTasks({ kind: 'deal', id: dealId });
    expect(found.map((t) => t.key)).toEqual(['offer:7012:lead:24h']);
    const creates = (await control.requests()).filter(
      (r) => r.method === 'POST' && r.path.endsWith('/tasks'),
    );
    expect(creates).toHaveLength(1);
  });

  it('goes through the rate-limit retry, and names errors with the port’s codes', async () => {
    const dealId = await newDeal();
    await control.put('faults', { burst429: 2 });
    const { id } = await port.createTask(input(dealId));
    expect(emulator.state.get('tasks', id)).toBeDefined();
    expect((await port.findTasks({ kind: 'deal', id: dealId })).map((t) => t.id)).toEqual([id]);

    const unknownDeal = await port.createTask(input('999999')).catch((error: unknown) => error);
    expect(unknownDeal).toMatchObject({ code: 'NOT_FOUND' });
    const badKey = await port.createTask(input(dealId, { key: 'has space' })).catch((e: unknown) => e);
    expect(badKey).toMatchObject({ code: 'INVALID_RECORD' });

    // Tasks need the contacts scopes (HubSpot's tasks guide); without them, AUTH_FAILED naming it.
    await control.put('tokens', {
      token: 'pat-deals',
      scopes: ['crm.objects.deals.read', 'crm.objects.deals.write', 'crm.objects.contacts.read'],
    });
    const limited = build({ accessToken: 'pat-deals' });
    const refused = await limited.createTask(input(dealId)).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'AUTH_FAILED' });
    expect((refused as CrmError).message).toContain('crm.objects.contacts.write');
    expect((await limited.checkAccess()).missing).toContain('crm.objects.contacts.write');
  });
});
