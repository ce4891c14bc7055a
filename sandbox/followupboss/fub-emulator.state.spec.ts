import { dealMatcher } from './fub-emulator.deals';
import { FubState, type ChangeAction } from './fub-emulator.state';

describe('FubState.remove', () => {
  let state: FubState;
  let changes: [string, ChangeAction, number][];

  beforeEach(() => {
    state = new FubState();
    changes = [];
    state.onChange = (resource, action, record) => changes.push([resource, action, record.id]);
  });

  it('forgets a person and tells the listener', () => {
    const person = state.create('people', { firstName: 'A' });
    state.remove('people', person.id);
    expect(state.records.people.has(person.id)).toBe(false);
    expect(changes).toEqual([
      ['people', 'created', person.id],
      ['people', 'deleted', person.id],
    ]);
    expect(() => state.remove('people', person.id)).toThrow(`Person ${person.id} not found`);
  });

  it('keeps a deal with status Deleted, which a second delete cannot find', () => {
    const deal = state.create('deals', { name: 'D', stageId: 1 });
    state.offsetMs = 5000;
    state.remove('deals', deal.id);
    expect(state.get('deals', deal.id).fields.status).toBe('Deleted');
    expect(Date.parse(deal.updated)).toBeGreaterThan(Date.parse(deal.created));
    expect(changes.map(([, action]) => action)).toEqual(['created', 'deleted']);
    expect(() => state.remove('deals', deal.id)).toThrow(`Deal ${deal.id} not found`);
  });
});

describe('dealMatcher', () => {
  const state = new FubState();
  const active = state.create('deals', { name: 'A', stageId: 1 });
  const deleted = state.create('deals', { name: 'B', stageId: 1, status: 'Deleted' });
  const matching = (q: Record<string, string>): number[] =>
    [active, deleted].filter((d) => dealMatcher(state)(d, q)).map((d) => d.id);

  it('leaves deleted deals out unless includeDeleted=1 or a status asks for them', () => {
    expect(matching({})).toEqual([active.id]);
    expect(matching({ includeDeleted: '1' })).toEqual([active.id, deleted.id]);
    expect(matching({ status: 'Deleted' })).toEqual([deleted.id]);
    expect(matching({ status: 'Active,Deleted' })).toEqual([active.id, deleted.id]);
  });
});
