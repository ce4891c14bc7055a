import type { ConfigService } from '../config/config.service';
import type { LoadedBrokerage } from '../config/config.loader';

// One value per brokerage (a client, an adapter), built from its loaded config and kept while the
// config's fingerprint is the same, so a client's rate limiter and breaker see every call; rebuilt
// after the brokerage's config changes, disposed when it changes or goes.
export class PerBrokerageCache<T> {
  private readonly entries = new Map<string, { fingerprint: string; value: T }>();

  constructor(
    private readonly config: ConfigService,
    private readonly build: (brokerage: LoadedBrokerage) => T,
    private readonly dispose: (value: T) => void = () => undefined,
  ) {
    config.onChange((diff) => {
      for (const brokerage of [...diff.changed, ...diff.removed]) this.drop(brokerage.id);
    });
  }

  get(brokerageId: string): { brokerage: LoadedBrokerage; value: T } {
    const brokerage = this.config.get(brokerageId);
    if (!brokerage) throw new Error(`no brokerage "${brokerageId}" is configured`);
    const cached = this.entries.get(brokerageId);
    if (cached && cached.fingerprint === brokerage.fingerprint) return { brokerage, value: cached.value };
    if (cached) this.dispose(cached.value);
    const value = this.build(brokerage);
    this.entries.set(brokerageId, { fingerprint: brokerage.fingerprint, value });
    return { brokerage, value };
  }

  clear(): void {
    for (const id of [...this.entries.keys()]) this.drop(id);
  }

  private drop(brokerageId: string): void {
    const cached = this.entries.get(brokerageId);
    this.entries.delete(brokerageId);
    if (cached) this.dispose(cached.value);
  }
}
