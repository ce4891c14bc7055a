import { ObjectStore } from './emulator.object-store';
import { SchemaStore } from './emulator.schema-store';

// HubSpot's search shows a write "a few moments" after it is made (docs/crm-hubspot.md, "Search
// indexing lag"; crm-apis.md A5): every write reaches the index in turn, a lag behind.
describe('ObjectStore search view (the indexing lag)', () => {
  const LAG = 2_000;
  const store = () => {
    const s = new ObjectStore(new SchemaStore());
    s.searchIndexLagMs = LAG;
    return s;
  };
  const nameIn = (s: ObjectStore, id: string, now: number) =>
    s.searchView(s.get('deals', id)!, now)?.properties.dealname;

  it('does not show a new record until the lag has passed', () => {
    const s = store();
    const { id } = s.create('deals', { dealname: 'v0' }, 0);
    expect(nameIn(s, id, LAG - 1)).toBeUndefined();
    expect(nameIn(s, id, LAG)).toBe('v0');
  });

  it('shows the version before a write until the write is as old as the lag', () => {
    const s = store();
    const { id } = s.create('deals', { dealname: 'v0' }, 0);
    s.update(s.get('deals', id)!, { dealname: 'v1' }, 10_000);
    expect(nameIn(s, id, 10_000 + LAG - 1)).toBe('v0');
    expect(nameIn(s, id, 10_000 + LAG)).toBe('v1');
  });

  it('goes on showing a record written more often than the lag, a lag behind, never one version for good', () => {
    const s = store();
    const { id } = s.create('deals', { dealname: 'v0' }, 0);
    for (let n = 1; n <= 20; n++) {
      const at = 10_000 + n * 1_000;
      s.update(s.get('deals', id)!, { dealname: `v${n}` }, at);
      // Written every second: the newest version at least 2 s old is the one of two writes back.
      expect(nameIn(s, id, at + 500)).toBe(`v${Math.max(n - 2, 0)}`);
    }
    expect(nameIn(s, id, 30_000 + LAG)).toBe('v20');
    // Versions search can never show again are dropped as writes come.
    expect(s.get('deals', id)!.earlier.length).toBeLessThanOrEqual(3);
  });

  it('shows every write at once with no lag', () => {
    const s = new ObjectStore(new SchemaStore());
    const { id } = s.create('deals', { dealname: 'v0' }, 0);
    s.update(s.get('deals', id)!, { dealname: 'v1' }, 1);
    expect(nameIn(s, id, 1)).toBe('v1');
    expect(s.get('deals', id)!.earlier).toEqual([]);
  });
});
