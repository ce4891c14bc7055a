import { CrmError, VendorNeutralCrmPort, type CrmTaskInput } from '../../../src/crm';
import { FOLLOWUPBOSS_VENDOR_PROFILE, FollowUpBossCrmAdapter } from '../../../src/crm/followupboss';
import { startFollowUpBossEmulator, type FollowUpBossEmulator } from '../../../sandbox/followupboss';
import { fubApi, fubControl } from '../../support/fub-emulator.client';
import { waitFor } from '../../support/wait-for';

// The port's task operations on Follow Up Boss (createTask, findTasks, completeTask), through the
// vendor-neutral port as flows call them, against the emulator's /v1/tasks: a task about a deal
// goes on the deal's person, its key at the end of its name.
describe('FollowUpBossCrmAdapter tasks against the Follow Up Boss emulator', () => {
  let emulator: FollowUpBossEmulator;
  let port: VendorNeutralCrmPort;
  let stageId: number;

  const build = (extra: Partial<ConstructorParameters<typeof FollowUpBossCrmAdapter>[0]> = {}) =>
    new FollowUpBossCrmAdapter({
      apiKey: emulator.apiKey,
      baseUrl: emulator.url,
      systemKey: emulator.systemKey,
      rateLimit: { max: 10_000, intervalMs: 1000 },
      retryBaseDelayMs: 10,
      ...extra,
    });
  const api = (method: string, path: string, body?: unknown) => fubApi(emulator, method, path, body);

  beforeAll(async () => {
    emulator = await startFollowUpBossEmulator({ port: 0, rateLimit: null });
  });

  afterAll(async () => {
    await emulator.close();
  });

  beforeEach(async () => {
    await fubControl(emulator, 'POST', 'reset');
    port = new VendorNeutralCrmPort(build(), FOLLOWUPBOSS_VENDOR_PROFILE);
    stageId = emulator.state.pipelines()[0].stages[0].id;
  });

  // A listing deal with its seller, whose agent is user 7 unless told otherwise.
  async function dealWithPerson(agent: number | null = 7): Promise<{ dealId: string; personId: string }> {
    const person = await api('POST', '/people', {
      firstName: 'Jane',
      lastName: 'Seller',
      ...(agent === null ? {} : { assignedUserId: agent }),
    });
    const deal = await api('POST', '/deals', { name: 'Listing', stageId, peopleIds: [person.body.id] });
    return { dealId: String(deal.body.id), personId: String(person.body.id) };
  }

  const input = (dealId: string, extra: Partial<CrmTaskInput> = {}): CrmTaskInput => ({
    key: 'offer:7012:lead:24h',
    about: { kind: 'deal', id: dealId },
    subject: 'Offer 7012 from Jane Buyer, $250,000, expires Thu 14:00',
    body: 'Decide within 24 h.',
    dueAt: new Date('2026-11-26T14:00:00Z'),
    ...extra,
  });

  it("createTask puts the task on the deal's person, named with its key, due at dueAt, for the owner or the person's agent", async () => {
    const { dealId, personId } = await dealWithPerson();
    const { id } = await port.createTask(input(dealId, { ownerId: '42' }));
    expect(emulator.state.get('tasks', id)).toMatchObject({
      personId: Number(personId),
      name: 'Offer 7012 from Jane Buyer, $250,000, expires Thu 14:00 [cash-offer-sync: offer:7012:lead:24h]',
      type: 'Follow Up',
      assignedUserId: 42,
      dueDateTime: '2026-11-26T14:00:00Z',
      isCompleted: false,
    });
    const byAgent = await port.createTask(input(dealId, { key: 'offer:7012:lead:1h' }));
    expect(emulator.state.get('tasks', byAgent.id)).toMatchObject({ assignedUserId: 7 });
    const onPerson = await port.createTask(input(personId, { about: { kind: 'contact', id: personId } }));
    expect(emulator.state.get('tasks', onPerson.id)).toMatchObject({ personId: Number(personId) });
  });

  it('createTask calls beforeSend as the request leaves, and sends nothing when it refuses (a drain that lost the command)', async () => {
    const { dealId } = await dealWithPerson();
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

  it('createTask says so after each 429, which did nothing, before the task goes again', async () => {
    // On the person, for a given user: the create is the only call, so it meets both 429s.
    const { personId } = await dealWithPerson();
    const calls: string[] = [];
    await fubControl(emulator, 'PUT', 'faults', { burst429: 2 });
    await port.createTask(
      input(personId, {
        about: { kind: 'contact', id: personId },
        ownerId: '42',
        beforeSend: () => Promise.resolve(void calls.push('beforeSend')),
        refusedBeforeRetry: () => Promise.resolve(void calls.push('refused')),
      }),
    );
    expect(calls).toEqual(['beforeSend', 'refused', 'beforeSend', 'refused', 'beforeSend']);
  });

  it('findTasks reads the key back from the name, across pages, and shows an agent’s own task with key null', async () => {
    const { dealId, personId } = await dealWithPerson();
    const other = await dealWithPerson();
    const made: string[] = [];
    for (let i = 0; i < 102; i++)
      made.push((await port.createTask(input(dealId, { key: `offer:${i}:lead:24h` }))).id);
    await port.createTask(input(other.dealId, { key: 'offer:other:lead:24h' }));
    const agents = await api('POST', '/tasks', {
      personId: Number(personId),
      name: 'Call Jane',
      assignedUserId: 7,
    });
    const tasks = await port.findTasks({ kind: 'deal', id: dealId });
    expect(tasks).toHaveLength(103);
    expect(new Set(tasks.map((t) => t.key))).toEqual(
      new Set([...made.map((_, i) => `offer:${i}:lead:24h`), null]),
    );
    expect(tasks.find((t) => t.key === 'offer:0:lead:24h')).toEqual({
      id: made[0],
      key: 'offer:0:lead:24h',
      completed: false,
      dueAt: new Date('2026-11-26T14:00:00Z'),
      subject: 'Offer 7012 from Jane Buyer, $250,000, expires Thu 14:00',
    });
    expect(tasks.find((t) => t.id === String(agents.body.id))).toMatchObject({
      key: null,
      subject: 'Call Jane',
      dueAt: null,
    });
    // A deal without a person (or gone) has no tasks.
    expect(await port.findTasks({ kind: 'deal', id: '999999' })).toEqual([]);
  });

  it('completeTask marks the task completed; twice is fine, and so is a deleted task', async () => {
    const { dealId } = await dealWithPerson();
    const { id } = await port.createTask(input(dealId));
    await port.completeTask(id);
    await port.completeTask(id);
    expect(emulator.state.get('tasks', id)).toMatchObject({ isCompleted: true });
    expect((await port.findTasks({ kind: 'deal', id: dealId }))[0]).toMatchObject({ id, completed: true });
    await api('DELETE', `/tasks/${id}`);
    await expect(port.completeTask(id)).resolves.toBeUndefined();
  });

  it('a create whose answer was lost is not sent again, and findTasks finds the task it made by its key', async () => {
    const { dealId, personId } = await dealWithPerson();
    const impatient = new VendorNeutralCrmPort(build({ requestTimeoutMs: 150 }), FOLLOWUPBOSS_VENDOR_PROFILE);
    // On the person, for a given user: the create is the only call, and its answer comes too late.
    await fubControl(emulator, 'PUT', 'faults', { answerDelayMs: 400 });
    const lost = await impatient
      .createTask(input(dealId, { about: { kind: 'contact', id: personId }, ownerId: '7' }))
      .catch((error: unknown) => error);
    await fubControl(emulator, 'PUT', 'faults', { answerDelayMs: 0 });
    expect(lost).toBeInstanceOf(CrmError);
    expect((lost as CrmError).code).toBe('OUTCOME_UNKNOWN');
    await waitFor(async () => (await port.findTasks({ kind: 'deal', id: dealId })).length > 0, {
      what: "the deal's task",
    });
    expect((await port.findTasks({ kind: 'deal', id: dealId })).map((t) => t.key)).toEqual([
      'offer:7012:lead:24h',
    ]);
    expect(emulator.state.count('tasks')).toBe(1);
  });

  it('goes through the rate-limit retry, and refuses what FUB cannot hold with INVALID_RECORD', async () => {
    const { dealId } = await dealWithPerson();
    await fubControl(emulator, 'PUT', 'faults', { burst429: 2 });
    const { id } = await port.createTask(input(dealId));
    expect(emulator.state.count('tasks')).toBe(1);
    expect(emulator.state.get('tasks', id)).toBeDefined();

    const noAgent = await dealWithPerson(null);
    const unassigned = await port.createTask(input(noAgent.dealId)).catch((error: unknown) => error);
    expect(unassigned).toMatchObject({ code: 'INVALID_RECORD' });
    expect((unassigned as CrmError).message).toContain('no agent');
    const lonely = await api('POST', '/deals', { name: 'No seller', stageId });
    const noPerson = await port.createTask(input(String(lonely.body.id))).catch((error: unknown) => error);
    expect(noPerson).toMatchObject({ code: 'INVALID_RECORD' });
    expect((noPerson as CrmError).message).toContain('no person is linked');
    expect(emulator.state.count('tasks')).toBe(1);
  });
});
