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
  const retired: string[] = [];
  const closed: string[] = [];
  let built = 0;
  const cache = new PerBrokerageCache(config, (b) => `${b.id}@${b.fingerprint}#${++built}`, {
    retire: (value) => retired.push(value),
    close: (value) => closed.push(value),
  });
  const reload = (diff: Partial<ConfigDiff>) => listener?.({ added: [], changed: [], removed: [], ...diff });
  return { cache, set, brokerages, retired, closed, reload };
}

describe('PerBrokerageCache', () => {
  it('keeps one value per config fingerprint and retires the old one when it changes', () => {
    const { cache, set, retired, closed } = world();
    set('acme', 'v1');
    const first = cache.get('acme').value;
    expect(cache.get('acme').value).toBe(first);
    set('acme', 'v2');
    expect(cache.get('acme').value).toBe('acme@v2#2');
    expect(retired).toEqual([first]);
    expect(closed).toEqual([]);
  });

  it('retires a brokerage changed or removed by a reload, and closes everything on clear', () => {
    const { cache, set, brokerages, retired, closed, reload } = world();
    set('acme', 'v1');
    set('bravo', 'v1');
    set('charlie', 'v1');
    cache.get('acme');
    cache.get('bravo');
    cache.get('charlie');
    reload({ removed: [brokerages.get('acme')!], changed: [brokerages.get('charlie')!] });
    expect(retired).toEqual(['charlie@v1#3', 'acme@v1#1']);
    cache.clear();
    expect(closed).toEqual(['bravo@v1#2']);
  });

  it('names an unknown brokerage', () => {
    expect(() => world().cache.get('nope')).toThrow('no brokerage "nope" is configured');
  });
});
