import { Client } from '@hubspot/api-client';
import { AssociationSpecAssociationCategoryEnum } from '@hubspot/api-client/lib/codegen/crm/associations/v4';
import { startHubSpotEmulator } from '../../../sandbox/hubspot';
import type { HubSpotEmulator } from '../../../sandbox/hubspot';
import { freePort } from '../../support/free-port';
import { EmulatorControl } from '../crm/emulator-control';

// Tasks as HubSpot's tasks guide publishes them (https://developers.hubspot.com/docs/api/crm/tasks):
// POST /crm/v3/objects/tasks with properties and create-time associations (task to deal 216),
// hs_timestamp required, hs_task_status NOT_STARTED or COMPLETED, GET and PATCH by id, the contacts
// scopes; and a deal's tasks read back through the v4 associations and a batch read.
interface SdkError {
  code: number;
  body: { category?: string; message?: string; errors?: { context?: Record<string, string[]> }[] };
}

async function sdkError(promise: Promise<unknown>): Promise<SdkError> {
  try {
    await promise;
  } catch (error) {
    return error as SdkError;
  }
  throw new Error('expected the SDK to throw');
}

const TASK_TO_DEAL = 216;

describe('HubSpot emulator: tasks', () => {
  let emulator: HubSpotEmulator;
  let client: Client;
  let control: EmulatorControl;

  beforeAll(async () => {
    emulator = await startHubSpotEmulator({ port: await freePort(), token: 'pat-test', searchIndexLagMs: 0 });
    client = new Client({ accessToken: emulator.token, basePath: emulator.url });
    control = new EmulatorControl(emulator.url);
  });

  afterAll(async () => {
    await emulator.close();
  });

  beforeEach(async () => {
    await control.reset();
  });

  const newDeal = async (): Promise<string> =>
    (await client.crm.deals.basicApi.create({ properties: { dealname: 'Listing' }, associations: [] })).id;

  const taskOn = (dealId: string, properties: Record<string, string>) =>
    client.crm.objects.tasks.basicApi.create({
      properties,
      associations: [
        {
          to: { id: dealId },
          types: [
            {
              associationCategory: AssociationSpecAssociationCategoryEnum.HubspotDefined,
              associationTypeId: TASK_TO_DEAL,
            },
          ],
        },
      ],
    });

  it('creates a task associated with a deal, reads it by id and through the deal', async () => {
    const dealId = await newDeal();
    const task = await taskOn(dealId, {
      hs_timestamp: '2026-11-26T14:00:00Z',
      hs_task_subject: 'Offer 7012 expires',
      hs_task_body: 'Decide within 24 h',
      hs_task_status: 'NOT_STARTED',
      hs_task_priority: 'HIGH',
      hubspot_owner_id: '64492917',
    });
    expect(task.properties.hs_task_subject).toBe('Offer 7012 expires');
    expect(task.properties.hs_timestamp).toBe('2026-11-26T14:00:00.000Z');

    const read = await client.crm.objects.tasks.basicApi.getById(task.id, [
      'hs_task_subject',
      'hs_task_body',
      'hs_task_status',
      'hubspot_owner_id',
    ]);
    expect(read.properties).toMatchObject({
      hs_task_body: 'Decide within 24 h',
      hs_task_status: 'NOT_STARTED',
      hubspot_owner_id: '64492917',
    });

    // Both directions: the deal lists the task (deal to task 215), the task its deal (216).
    const fromDeal = await client.crm.associations.v4.basicApi.getPage('deals', dealId, 'tasks');
    expect(fromDeal.results.map((r) => r.toObjectId)).toEqual([task.id]);
    expect(fromDeal.results[0].associationTypes).toEqual([
      { category: 'HUBSPOT_DEFINED', typeId: 215, label: null },
    ]);
    const fromTask = await client.crm.associations.v4.basicApi.getPage('tasks', task.id, 'deals');
    expect(fromTask.results[0].associationTypes[0].typeId).toBe(TASK_TO_DEAL);

    const batch = await client.crm.objects.tasks.batchApi.read({
      inputs: [{ id: task.id }],
      properties: ['hs_task_subject', 'hs_task_status'],
      propertiesWithHistory: [],
    });
    expect(batch.results.map((r) => r.properties.hs_task_status)).toEqual(['NOT_STARTED']);
  });

  it('completes a task with PATCH hs_task_status=COMPLETED, and again without complaint', async () => {
    const task = await taskOn(await newDeal(), {
      hs_timestamp: '2026-11-26T14:00:00Z',
      hs_task_subject: 'S',
    });
    const done = { properties: { hs_task_status: 'COMPLETED' } };
    await client.crm.objects.tasks.basicApi.update(task.id, done);
    await client.crm.objects.tasks.basicApi.update(task.id, done);
    const read = await client.crm.objects.tasks.basicApi.getById(task.id, ['hs_task_status']);
    expect(read.properties.hs_task_status).toBe('COMPLETED');
  });

  it('refuses a task without hs_timestamp or with a status HubSpot does not know, and writes nothing', async () => {
    const dealId = await newDeal();
    const noDue = await sdkError(taskOn(dealId, { hs_task_subject: 'S' }));
    expect(noDue.code).toBe(400);
    expect(noDue.body.category).toBe('VALIDATION_ERROR');
    expect(noDue.body.message).toContain('hs_timestamp');
    const badStatus = await sdkError(
      taskOn(dealId, { hs_timestamp: '2026-11-26T14:00:00Z', hs_task_status: 'DONE' }),
    );
    expect(badStatus.code).toBe(400);
    expect(badStatus.body.message).toContain('DONE');
    expect((await client.crm.objects.tasks.basicApi.getPage(10)).results).toEqual([]);
    const links = await client.crm.associations.v4.basicApi.getPage('deals', dealId, 'tasks');
    expect(links.results).toEqual([]);
  });

  it('answers 404 for an unknown task, and an archived one is gone from reads', async () => {
    const unknown = await sdkError(client.crm.objects.tasks.basicApi.getById('999999'));
    expect(unknown.code).toBe(404);
    const task = await taskOn(await newDeal(), { hs_timestamp: '2026-11-26T14:00:00Z' });
    await client.crm.objects.tasks.basicApi.archive(task.id);
    const gone = await sdkError(
      client.crm.objects.tasks.basicApi.update(task.id, { properties: { hs_task_status: 'COMPLETED' } }),
    );
    expect(gone.code).toBe(404);
  });

  it('asks for the contacts scopes, as the tasks guide lists them', async () => {
    const dealId = await newDeal();
    await control.put('tokens', {
      token: 'pat-deals-only',
      scopes: ['crm.objects.deals.read', 'crm.objects.deals.write', 'crm.objects.contacts.read'],
    });
    const limited = new Client({ accessToken: 'pat-deals-only', basePath: emulator.url });
    const error = await sdkError(
      limited.crm.objects.tasks.basicApi.create({
        properties: { hs_timestamp: '2026-11-26T14:00:00Z' },
        associations: [],
      }),
    );
    expect(error.code).toBe(403);
    expect(error.body.category).toBe('MISSING_SCOPES');
    expect(error.body.errors?.[0].context?.requiredScopes).toEqual(['crm.objects.contacts.write']);
    // Reading needs only the read scope.
    const task = await taskOn(dealId, { hs_timestamp: '2026-11-26T14:00:00Z' });
    expect((await limited.crm.objects.tasks.basicApi.getById(task.id)).id).toBe(task.id);
  });

  // Owners as HubSpot's owners guide publishes them (https://developers.hubspot.com/docs/api/crm/owners):
  // GET /crm/v3/owners lists the users with an `id` (for hubspot_owner_id) and a `userId` (which
  // "will result in an error if it is used to assign ownership"); a deactivated user is archived.
  it('lists owners, assigns a task to an owner id, and refuses a user id or a deactivated owner', async () => {
    const page = await client.crm.owners.ownersApi.getPage();
    const dana = page.results.find((o) => o.email === 'dana.reyes@acme-realty.example')!;
    expect(dana).toMatchObject({ id: '64492917', firstName: 'Dana', archived: false });
    expect((await client.crm.owners.ownersApi.getById(Number(dana.id))).email).toBe(dana.email);

    const dealId = await newDeal();
    const task = await taskOn(dealId, { hs_timestamp: '2026-11-26T14:00:00Z', hubspot_owner_id: dana.id });
    expect(
      (await client.crm.objects.tasks.basicApi.getById(task.id, ['hubspot_owner_id'])).properties,
    ).toMatchObject({ hubspot_owner_id: dana.id });
    // A deal's owner is the same property.
    await client.crm.deals.basicApi.update(dealId, { properties: { hubspot_owner_id: dana.id } });

    const byUserId = await sdkError(
      taskOn(dealId, { hs_timestamp: '2026-11-26T14:00:00Z', hubspot_owner_id: String(dana.userId) }),
    );
    expect(byUserId.code).toBe(400);
    expect(byUserId.body.category).toBe('VALIDATION_ERROR');
    expect(byUserId.body.message).toContain('INVALID_OWNER_ID');
    expect(byUserId.body.errors?.[0].context?.propertyName).toEqual(['hubspot_owner_id']);

    emulator.owners.deactivate(dana.id);
    const archived = await sdkError(
      taskOn(dealId, { hs_timestamp: '2026-11-26T14:00:00Z', hubspot_owner_id: dana.id }),
    );
    expect(archived.code).toBe(400);
    expect(archived.body.message).toContain(`${dana.id} is not a valid owner id`);
    expect(
      (await client.crm.owners.ownersApi.getPage(undefined, undefined, undefined, true)).results,
    ).toEqual([expect.objectContaining({ id: dana.id, archived: true, userId: null })]);
  });

  it('asks for crm.objects.owners.read to list owners', async () => {
    await control.put('tokens', { token: 'pat-no-owners', scopes: ['crm.objects.deals.read'] });
    const limited = new Client({ accessToken: 'pat-no-owners', basePath: emulator.url });
    const error = await sdkError(limited.crm.owners.ownersApi.getPage());
    expect(error.code).toBe(403);
    expect(error.body.errors?.[0].context?.requiredScopes).toEqual(['crm.objects.owners.read']);
  });
});
