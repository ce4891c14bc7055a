import { SandboxStore } from './sandbox.store';
import type { StoredCounterOffer } from './sandbox.types';

describe('SandboxStore ids (spec reading idSequences)', () => {
  it('counts each kind in its own range, or every kind from 1', () => {
    let numbering: 'apart' | 'from-one' = 'apart';
    const store = new SandboxStore([], () => numbering);
    expect([
      store.nextRequestId(),
      store.nextOfferId(),
      store.nextCounterId(),
      store.nextPropertyId(),
    ]).toEqual([1001, 7001, 9001, 500_001]);
    numbering = 'from-one';
    expect([
      store.nextRequestId(),
      store.nextOfferId(),
      store.nextCounterId(),
      store.nextPropertyId(),
    ]).toEqual([1, 1, 1, 1]);
  });

  it('never gives an id a record of its kind holds, whichever numbering gave it', () => {
    const store = new SandboxStore([], () => 'from-one');
    store.counters.set(1, { counter_offer_id: 1 } as StoredCounterOffer);
    store.counters.set(2, { counter_offer_id: 2 } as StoredCounterOffer);
    expect(store.nextCounterId()).toBe(3);
    // Another kind's ids are not taken: offer 1 and counter 1 may both exist.
    expect(store.nextOfferId()).toBe(1);
  });
});
