import type { ConfigService } from '../config/config.service';
import type { LoadedBrokerage } from '../config/config.loader';

// What becomes of a value the cache lets go of. `retire`: its brokerage's config changed or went, but
// a run that took the value before may still be using it, so it must not fail that run's calls.
// `close`: the daemon is stopping, nothing runs any more.
export interface Disposal<T> {
  retire?: (value: T) => void;
  close?: (value: T) => void;
}

// One value per brokerage (a client, an adapter), built from its loaded config and kept while the
// config's fingerprint is the same, so a client's rate limiter and breaker see every call; rebuilt
// after the brokerage's config changes (the old value retired), closed when the daemon stops.
export class PerBrokerageCache<T> {
  private readonly entries = new Map<string, { fingerprint: string; value: T }>();

  constructor(
    private readonly config: ConfigService,
    private readonly build: (brokerage: LoadedBrokerage) => T,
    private readonly disposal: Disposal<T> = {},
  ) {
    config.onChange((diff) => {
      for (const brokerage of [...diff.changed, ...diff.removed]) this.drop(brokerage.id, disposal.retire);
    });
  }

  get(brokerageId: string): { brokerage: LoadedBrokerage; value: T } {
    const brokerage = this.config.get(brokerageId);
    if (!brokerage) throw new Error(`no brokerage "${brokerageId}" is configured`);
    const cached = this.entries.get(brokerageId);
    if (cached && cached.fingerprint === brokerage.fingerprint) return { brokerage, value: cached.value };
    if (cached) this.disposal.retire?.(cached.value);
    const value = this.build(brokerage);
    this.entries.set(brokerageId, { fingerprint: brokerage.fingerprint, value });
    return { brokerage, value };
  }

  // The daemon is stopping: every value is closed.
  clear(): void {
    for (const id of [...this.entries.keys()]) this.drop(id, this.disposal.close);
  }

  private drop(brokerageId: string, dispose?: (value: T) => void): void {
    const cached = this.entries.get(brokerageId);
    this.entries.delete(brokerageId);
    if (cached) dispose?.(cached.value);
  }
}
