import { createHmac, randomUUID } from 'node:crypto';
import type { ChangeAction, Resource } from './fub-emulator.state';
import type { StoredRecord } from './fub-emulator.types';

// The events FUB documents for people, deals and notes (docs.followupboss.com/reference/webhooks-guide;
// crm-apis.md B6). FUB has more (calls, emails, tasks, ...); the emulator refuses what it cannot emit.
export const FUB_WEBHOOK_EVENTS = [
  'peopleCreated',
  'peopleUpdated',
  'peopleDeleted',
  'peopleTagsCreated',
  'peopleStageUpdated',
  'peopleRelationshipCreated',
  'peopleRelationshipUpdated',
  'peopleRelationshipDeleted',
  'dealsCreated',
  'dealsUpdated',
  'dealsDeleted',
  'notesCreated',
  'notesUpdated',
  'notesDeleted',
] as const;
export type FubWebhookEvent = (typeof FUB_WEBHOOK_EVENTS)[number];

export interface StoredWebhook {
  id: number;
  event: FubWebhookEvent;
  url: string;
  status: 'Active' | 'Disabled';
  system: string;
}

export interface WebhookSettings {
  // Attempts per delivery, the first included; FUB retries for up to 8 hours, the emulator compresses it.
  maxAttempts: number;
  // Wait before retry n is retryBaseMs * 2^(n-1): no jitter, so tests are deterministic.
  retryBaseMs: number;
  // An answer slower than this counts as failed, as FUB expects a fast 2xx.
  timeoutMs: number;
}

// Counts apply to the next n deliveries (first attempts), so a test knows exactly which one is hit.
export interface WebhookFaults {
  drop: number;
  duplicate: number;
  badSignature: number;
  delayMs: number;
}

export interface DeliveryAttempt {
  webhookId: number;
  eventId: string;
  event: FubWebhookEvent;
  resourceIds: number[];
  attempt: number;
  // The receiver's HTTP status, or why there was none.
  outcome: number | 'timeout' | 'network error' | 'dropped';
  at: string;
}

export const DEFAULT_WEBHOOK_SETTINGS: WebhookSettings = {
  maxAttempts: 5,
  retryBaseMs: 1000,
  timeoutMs: 5000,
};
const EVENT_SUFFIX = { created: 'Created', updated: 'Updated', deleted: 'Deleted' } as const;
const NO_FAULTS: WebhookFaults = { drop: 0, duplicate: 0, badSignature: 0, delayMs: 0 };
const MAX_LOG = 10_000;

// FUB-Signature: hex HMAC-SHA256, keyed with the system key, of the base64 of the raw body (crm-apis.md
// B6: four independent open-source receivers agree). Repeated here: the sandbox imports nothing from
// the daemon.
export function fubSignature(body: string, systemKey: string): string {
  return createHmac('sha256', systemKey).update(Buffer.from(body).toString('base64')).digest('hex');
}

// Registered webhooks and their deliveries: changes made in one tick are batched per event into
// one POST `{ eventId, eventCreated, event, resourceIds, uri }`, signed, retried with backoff.
export class FubWebhooks {
  readonly hooks = new Map<number, StoredWebhook>();
  readonly deliveries: DeliveryAttempt[] = [];
  settings: WebhookSettings;
  faults: WebhookFaults = { ...NO_FAULTS };
  // The API's public root for `uri` (set once the server listens).
  apiBase = 'http://127.0.0.1';
  private nextId = 1;
  private batch = new Map<FubWebhookEvent, number[]>();
  private flushScheduled = false;
  private readonly timers = new Set<NodeJS.Timeout>();
  private inFlight = 0;
  private generation = 0;
  private readonly defaults: WebhookSettings;

  constructor(
    private readonly systemKey: string,
    defaults: WebhookSettings = DEFAULT_WEBHOOK_SETTINGS,
  ) {
    this.settings = { ...defaults };
    this.defaults = { ...defaults };
  }

  // Deliveries scheduled or under way (tests wait for 0).
  get pending(): number {
    return this.timers.size + this.inFlight + (this.flushScheduled ? 1 : 0);
  }

  reset(): void {
    this.generation++;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.hooks.clear();
    this.deliveries.length = 0;
    this.batch.clear();
    this.faults = { ...NO_FAULTS };
    this.settings = { ...this.defaults };
    this.nextId = 1;
  }

  create(input: Omit<StoredWebhook, 'id' | 'status'>): StoredWebhook {
    const hook: StoredWebhook = { id: this.nextId++, status: 'Active', ...input };
    this.hooks.set(hook.id, hook);
    return hook;
  }

  // What the account's change means as events.
  recordChange(
    resource: Resource,
    action: ChangeAction,
    record: StoredRecord,
    before?: Record<string, unknown>,
  ): void {
    // FUB's task events are not emulated (a webhook for them is refused), so tasks emit nothing.
    if (resource === 'tasks') return;
    const events: FubWebhookEvent[] = [`${resource}${EVENT_SUFFIX[action]}`];
    if (resource === 'people' && action === 'updated' && before && before.stage !== record.fields.stage)
      events.push('peopleStageUpdated');
    for (const event of events) {
      if (![...this.hooks.values()].some((h) => h.event === event && h.status === 'Active')) continue;
      const ids = this.batch.get(event) ?? [];
      if (!ids.includes(record.id)) ids.push(record.id);
      this.batch.set(event, ids);
    }
    if (this.batch.size > 0 && !this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => this.flush());
    }
  }

  private flush(): void {
    this.flushScheduled = false;
    const batch = this.batch;
    this.batch = new Map();
    for (const [event, resourceIds] of batch) {
      const resource = event.replace(/(Created|Updated|Deleted|StageUpdated)$/, '');
      const payload = {
        eventId: randomUUID(),
        eventCreated: new Date().toISOString(),
        event,
        resourceIds,
        uri: `${this.apiBase}/v1/${resource}?id=${resourceIds.join(',')}`,
      };
      for (const hook of this.hooks.values()) {
        if (hook.event !== event || hook.status !== 'Active') continue;
        this.firstAttempt(hook, payload);
      }
    }
  }

  private firstAttempt(
    hook: StoredWebhook,
    payload: { eventId: string; event: FubWebhookEvent; resourceIds: number[] },
  ): void {
    const body = JSON.stringify(payload);
    const record = (attempt: number, outcome: DeliveryAttempt['outcome']): void => {
      this.deliveries.push({
        webhookId: hook.id,
        eventId: payload.eventId,
        event: payload.event,
        resourceIds: payload.resourceIds,
        attempt,
        outcome,
        at: new Date().toISOString(),
      });
      if (this.deliveries.length > MAX_LOG) this.deliveries.splice(0, this.deliveries.length - MAX_LOG);
    };
    if (this.take('drop')) {
      record(1, 'dropped');
      return;
    }
    const duplicate = this.take('duplicate');
    const badSignature = this.take('badSignature');
    const signature = fubSignature(body, badSignature ? `${this.systemKey}-forged` : this.systemKey);
    const generation = this.generation;
    const attempt = (n: number): void => {
      this.inFlight++;
      void this.post(hook.url, body, signature)
        .then((outcome) => {
          if (generation !== this.generation) return;
          record(n, outcome);
          const ok = typeof outcome === 'number' && outcome >= 200 && outcome < 300;
          if (ok && duplicate && n === 1) return this.later(0, () => attempt(n + 1));
          if (ok || n >= this.settings.maxAttempts) return;
          this.later(this.settings.retryBaseMs * 2 ** (n - 1), () => attempt(n + 1));
        })
        .finally(() => this.inFlight--);
    };
    this.later(this.faults.delayMs, () => attempt(1));
  }

  // Whether this delivery is hit by the fault (and counts it off).
  private take(fault: 'drop' | 'duplicate' | 'badSignature'): boolean {
    if (this.faults[fault] === 0) return false;
    this.faults[fault]--;
    return true;
  }

  private later(ms: number, run: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      run();
    }, ms);
    this.timers.add(timer);
  }

  private async post(url: string, body: string, signature: string): Promise<DeliveryAttempt['outcome']> {
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'FUB-Signature': signature },
        body,
        signal: AbortSignal.timeout(this.settings.timeoutMs),
      });
      await res.arrayBuffer().catch(() => undefined);
      return res.status;
    } catch (error) {
      return error instanceof DOMException && error.name === 'TimeoutError' ? 'timeout' : 'network error';
    }
  }

  close(): void {
    this.reset();
  }
}
