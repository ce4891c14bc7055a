import type { ConfigDiff } from '../config/config-diff';
import type { ConfigService } from '../config/config.service';
import type { LoadedBrokerage } from '../config/config.loader';
import { PerBrokerageCache } from './per-brokerage.cache';

function world() {
  const brokerages = new Map<string, LoadedBrokerage>();
  const set = (id: string, fingerprint: string) =>
    brokerages.set(id, { id, fingerprint } as unknown as LoadedBrokerage);
  let listener: ((diff: ConfigDiff) => void) | undefined;
  const config = {
    get: (id: string) => brokerages.get(id),
    onChange: (l: (diff: ConfigDiff) => void) => {
      listener = l;
      return () => undefined;
    },
  } as unknown as ConfigService;
  const disposed: string[] = [];
  let built = 0;
  const cache = new PerBrokerageCache(
    config,
    (b) => `${b.id}@${b.fingerprint}#${++built}`,
    (value) => disposed.push(value),
  );
  const reload = (diff: Partial<ConfigDiff>) => listener?.({ added: [], changed: [], removed: [], ...diff });
  return { cache, set, brokerages, disposed, reload };
}

describe('PerBrokerageCache', () => {
  it('keeps one value per config fingerprint and disposes the old one when it changes', () => {
    const { cache, set, disposed } = world();
    set('acme', 'v1');
    const first = cache.get('acme').value;
    expect(cache.get('acme').value).toBe(first);
    set('acme', 'v2');
    expect(cache.get('acme').value).toBe('acme@v2#2');
    expect(disposed).toEqual([first]);
  });

  it('drops a brokerage changed or removed by a reload, and everything on clear', () => {
    const { cache, set, brokerages, disposed, reload } = world();
    set('acme', 'v1');
    set('bravo', 'v1');
    cache.get('acme');
    cache.get('bravo');
    reload({ removed: [brokerages.get('acme')!] });
    expect(disposed).toEqual(['acme@v1#1']);
    cache.clear();
    expect(disposed).toEqual(['acme@v1#1', 'bravo@v1#2']);
  });

  it('names an unknown brokerage', () => {
    expect(() => world().cache.get('nope')).toThrow('no brokerage "nope" is configured');
  });
});
