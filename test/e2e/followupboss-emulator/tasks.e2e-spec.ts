import { startFollowUpBossEmulator, type FollowUpBossEmulator } from '../../../sandbox/followupboss';
import { fubApi, fubControl } from '../../support/fub-emulator.client';

// /v1/tasks as FUB publishes it (docs.followupboss.com/reference/tasks-get, tasks-post,
// tasks-id-get, tasks-id-put, tasks-id-delete; docs/crm-followupboss.md for each choice), over real
// HTTP: a task on a person, assigned to a user, listed by personId and paged like every collection.
describe('Follow Up Boss emulator tasks', () => {
  let fub: FollowUpBossEmulator;
  const api = (method: string, path: string, body?: unknown) => fubApi(fub, method, path, body);

  beforeAll(async () => {
    fub = await startFollowUpBossEmulator({ port: 0 });
  });

  afterAll(async () => {
    await fub.close();
  });

  beforeEach(async () => {
    await fubControl(fub, 'POST', 'reset');
  });

  const person = async (): Promise<number> =>
    (await api('POST', '/people', { firstName: 'Jane', lastName: 'Seller' })).body.id as number;

  it('creates a task on a person, due at a time, and reads it back by id', async () => {
    const personId = await person();
    const created = await api('POST', '/tasks', {
      personId,
      name: 'Offer 7012 expires',
      type: 'Follow Up',
      assignedUserId: 7,
      dueDateTime: '2026-11-26T09:00:00-05:00',
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      personId,
      name: 'Offer 7012 expires',
      type: 'Follow Up',
      assignedUserId: 7,
      isCompleted: 0,
      completed: null,
      dueDate: '2026-11-26',
      dueDateTime: '2026-11-26T14:00:00Z',
    });
    const read = await api('GET', `/tasks/${String(created.body.id)}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);
    expect(read.headers.get('x-ratelimit-context')).toBe('global');
  });

  it('refuses a task without a person, a name or an assignee, or with a field a task does not have', async () => {
    const personId = await person();
    const cases: [Record<string, unknown>, string][] = [
      [{ name: 'N', assignedUserId: 1 }, 'personId is required'],
      [{ personId: 999, name: 'N', assignedUserId: 1 }, 'Invalid person id: 999'],
      [{ personId, assignedUserId: 1 }, 'name is required'],
      [{ personId, name: 'N' }, 'assignedUserId or assignedTo is required'],
      [{ personId, name: 'N', assignedUserId: 1, description: 'D' }, 'Invalid field for a task: description'],
      [{ personId, name: 'N', assignedUserId: 1, dueDateTime: 'tomorrow' }, 'Invalid dueDateTime: tomorrow'],
    ];
    for (const [body, message] of cases) {
      const answer = await api('POST', '/tasks', body);
      expect({ status: answer.status, body: answer.body }).toEqual({
        status: 400,
        body: { errorMessage: message },
      });
    }
    expect(fub.state.count('tasks')).toBe(0);
  });

  it('completes a task with PUT isCompleted, twice without complaint, keeping the first completion time', async () => {
    const personId = await person();
    const task = await api('POST', '/tasks', { personId, name: 'N', assignedTo: 'Agent A' });
    const id = String(task.body.id);
    const first = await api('PUT', `/tasks/${id}`, { isCompleted: true });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ isCompleted: 1, AssignedTo: 'Agent A' });
    expect(typeof first.body.completed).toBe('string');
    await fubControl(fub, 'PUT', 'settings', { advanceClockMs: 60_000 });
    const again = await api('PUT', `/tasks/${id}`, { isCompleted: true });
    expect(again.status).toBe(200);
    expect(again.body.completed).toBe(first.body.completed);
    // PUT's schema has no due date.
    expect((await api('PUT', `/tasks/${id}`, { dueDate: '2026-12-01' })).status).toBe(400);
  });

  it('lists a person’s tasks, newest first, paged with limit and _metadata.next', async () => {
    const mine = await person();
    const other = await person();
    for (let i = 0; i < 3; i++)
      await api('POST', '/tasks', { personId: mine, name: `T${i}`, assignedUserId: 1 });
    await api('POST', '/tasks', { personId: other, name: 'Other', assignedUserId: 1 });
    const first = await api('GET', `/tasks?personId=${mine}&limit=2`);
    expect(first.body._metadata).toMatchObject({ collection: 'tasks', limit: 2, total: 3 });
    const names = (first.body.tasks as { name: string }[]).map((t) => t.name);
    expect(names).toEqual(['T2', 'T1']);
    const next = (first.body._metadata as { next: string }).next;
    const second = await api('GET', `/tasks?next=${next}&limit=2`);
    expect((second.body.tasks as { name: string }[]).map((t) => t.name)).toEqual(['T0']);
    expect((second.body._metadata as { next: string | null }).next).toBeNull();
  });

  it('deletes a task: 204 without a body, then 404 to reads, updates and a second delete', async () => {
    const task = await api('POST', '/tasks', { personId: await person(), name: 'N', assignedUserId: 1 });
    const id = String(task.body.id);
    const deleted = await api('DELETE', `/tasks/${id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    const read = await api('GET', `/tasks/${id}`);
    expect(read.status).toBe(404);
    expect(read.body).toEqual({ errorMessage: `Task ${id} not found` });
    expect((await api('PUT', `/tasks/${id}`, { isCompleted: true })).status).toBe(404);
    expect((await api('DELETE', `/tasks/${id}`)).status).toBe(404);
  });
});
