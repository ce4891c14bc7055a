import { createHash, createHmac } from 'node:crypto';
import type { ObjectChange } from './emulator.object-store';
import type { ObjectType } from './emulator.types';

// The webhooks of one private app, as HubSpot sends them (docs/crm-hubspot.md, "The emulator's
// webhooks"): subscriptions as in a project's webhooks.json, batches of up to 100 events POSTed to
// the target URL, signed v3 (and v1 for older receivers), retried with a compressed schedule.

export type WebhookObjectName = 'deal' | 'contact';
export type WebhookSubscriptionType = 'object.creation' | 'object.propertyChange' | 'object.deletion';

export interface WebhookSubscription {
  id: number;
  subscriptionType: WebhookSubscriptionType;
  objectName: WebhookObjectName;
  propertyName?: string;
  active: boolean;
}

export interface WebhookApp {
  targetUrl: string | null;
  maxConcurrentRequests: number;
  subscriptions: WebhookSubscription[];
}

export interface WebhookSettings {
  // HubSpot retries a failed delivery up to 10 times over 24 hours; the emulator keeps the count and
  // compresses the time: retry n waits min(retryMaxMs, retryBaseMs * 2^(n-1)), no jitter.
  maxRetries: number;
  retryBaseMs: number;
  retryMaxMs: number;
  // An answer slower than this counts as failed (HubSpot waits 5 s).
  timeoutMs: number;
}

// Counts apply to the next n batches (first attempts), so a test knows exactly which one is hit.
export interface WebhookFaults {
  drop: number;
  duplicate: number;
  badSignature: number;
  delayMs: number;
}

export interface DeliveryAttempt {
  eventIds: number[];
  attemptNumber: number;
  // The receiver's HTTP status, or why there was none.
  outcome: number | 'timeout' | 'network error' | 'dropped';
  at: string;
}

export const DEFAULT_WEBHOOK_SETTINGS: WebhookSettings = {
  maxRetries: 10,
  retryBaseMs: 500,
  retryMaxMs: 10_000,
  timeoutMs: 5000,
};
export const MAX_EVENTS_PER_BATCH = 100;
const NO_FAULTS: WebhookFaults = { drop: 0, duplicate: 0, badSignature: 0, delayMs: 0 };
const MAX_LOG = 10_000;
const OBJECT_NAMES: Record<ObjectType, WebhookObjectName | undefined> = {
  deals: 'deal',
  contacts: 'contact',
  notes: undefined,
  tasks: undefined,
};
const OBJECT_TYPE_IDS: Record<WebhookObjectName, string> = { deal: '0-3', contact: '0-1' };

// v3: base64 HMAC-SHA256 with the client secret over method + URI + body + timestamp. Written here
// again: the sandbox imports nothing from the daemon.
export function hubSpotSignatureV3(
  method: string,
  uri: string,
  body: string,
  timestamp: string,
  secret: string,
): string {
  return createHmac('sha256', secret).update(`${method}${uri}${body}${timestamp}`).digest('base64');
}

interface WebhookEventBody {
  eventId: number;
  subscriptionId: number;
  portalId: number;
  appId: number;
  occurredAt: number;
  subscriptionType: WebhookSubscriptionType;
  attemptNumber: number;
  objectId: number;
  objectTypeId: string;
  propertyName?: string;
  propertyValue?: string;
  changeSource: string;
}

export class HubSpotWebhooks {
  app: WebhookApp;
  settings: WebhookSettings;
  faults: WebhookFaults = { ...NO_FAULTS };
  readonly deliveries: DeliveryAttempt[] = [];
  private pendingEvents: Omit<WebhookEventBody, 'attemptNumber'>[] = [];
  private flushScheduled = false;
  private nextEventId = 1;
  private nextSubscriptionId = 1;
  private inFlight = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private generation = 0;

  constructor(
    private clientSecret: string,
    readonly appId: number,
    readonly portalId: number,
    private readonly defaults: WebhookSettings = DEFAULT_WEBHOOK_SETTINGS,
  ) {
    this.app = { targetUrl: null, maxConcurrentRequests: 10, subscriptions: [] };
    this.settings = { ...defaults };
  }

  // Batches scheduled, waiting for a connection or under way (tests wait for 0).
  get pending(): number {
    return this.timers.size + this.inFlight + this.waiting.length + (this.flushScheduled ? 1 : 0);
  }

  reset(): void {
    this.generation++;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.waiting.length = 0;
    this.pendingEvents = [];
    this.deliveries.length = 0;
    this.faults = { ...NO_FAULTS };
    this.settings = { ...this.defaults };
    this.app = { targetUrl: null, maxConcurrentRequests: 10, subscriptions: [] };
  }

  // Replaces the app's webhook settings and subscriptions (a project's webhooks.json, deployed).
  configure(
    app: Omit<WebhookApp, 'subscriptions'> & { subscriptions: Omit<WebhookSubscription, 'id'>[] },
    clientSecret?: string,
  ): void {
    if (clientSecret) this.clientSecret = clientSecret;
    this.app = {
      targetUrl: app.targetUrl,
      maxConcurrentRequests: app.maxConcurrentRequests,
      subscriptions: app.subscriptions.map((s) => ({ ...s, id: this.nextSubscriptionId++ })),
    };
  }

  // What the portal's change means as events: one per matching active subscription (a property
  // change subscription is per property).
  recordChange(change: ObjectChange): void {
    const objectName = OBJECT_NAMES[change.type];
    if (!objectName || !this.app.targetUrl) return;
    const subscriptionType = `object.${change.kind}` as WebhookSubscriptionType;
    for (const subscription of this.app.subscriptions) {
      if (!subscription.active || subscription.objectName !== objectName) continue;
      if (subscription.subscriptionType !== subscriptionType) continue;
      const base = {
        subscriptionId: subscription.id,
        portalId: this.portalId,
        appId: this.appId,
        occurredAt: change.at,
        subscriptionType,
        objectId: Number(change.id),
        objectTypeId: OBJECT_TYPE_IDS[objectName],
        // "The source of the change", as property histories name it (the webhooks guide).
        changeSource: change.source.sourceType,
      };
      if (subscriptionType !== 'object.propertyChange')
        this.pendingEvents.push({ eventId: this.nextEventId++, ...base });
      else if (subscription.propertyName && subscription.propertyName in change.changed)
        this.pendingEvents.push({
          eventId: this.nextEventId++,
          ...base,
          propertyName: subscription.propertyName,
          propertyValue: change.changed[subscription.propertyName],
        });
    }
    if (this.pendingEvents.length > 0 && !this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => this.flush());
    }
  }

  close(): void {
    this.reset();
  }

  private flush(): void {
    this.flushScheduled = false;
    const events = this.pendingEvents;
    this.pendingEvents = [];
    const url = this.app.targetUrl;
    if (!url) return;
    for (let i = 0; i < events.length; i += MAX_EVENTS_PER_BATCH)
      this.firstAttempt(url, events.slice(i, i + MAX_EVENTS_PER_BATCH));
  }

  private firstAttempt(url: string, events: Omit<WebhookEventBody, 'attemptNumber'>[]): void {
    const eventIds = events.map((e) => e.eventId);
    const record = (attemptNumber: number, outcome: DeliveryAttempt['outcome']): void => {
      this.deliveries.push({ eventIds, attemptNumber, outcome, at: new Date().toISOString() });
      if (this.deliveries.length > MAX_LOG) this.deliveries.splice(0, this.deliveries.length - MAX_LOG);
    };
    if (this.take('drop')) return record(0, 'dropped');
    let duplicate = this.take('duplicate');
    const secret = this.take('badSignature') ? `${this.clientSecret}-forged` : this.clientSecret;
    const generation = this.generation;
    const attempt = (attemptNumber: number): void => {
      void this.send(url, events, attemptNumber, secret).then((outcome) => {
        if (generation !== this.generation) return;
        record(attemptNumber, outcome);
        const ok = typeof outcome === 'number' && outcome >= 200 && outcome < 300;
        if (ok && duplicate) {
          duplicate = false;
          return this.later(0, () => attempt(attemptNumber));
        }
        if (ok || !retried(outcome) || attemptNumber >= this.settings.maxRetries) return;
        const wait = Math.min(this.settings.retryMaxMs, this.settings.retryBaseMs * 2 ** attemptNumber);
        this.later(wait, () => attempt(attemptNumber + 1));
      });
    };
    this.later(this.faults.delayMs, () => attempt(0));
  }

  // One POST, once a connection is free (maxConcurrentRequests), signed at the time it leaves.
  private async send(
    url: string,
    events: Omit<WebhookEventBody, 'attemptNumber'>[],
    attemptNumber: number,
    secret: string,
  ): Promise<DeliveryAttempt['outcome']> {
    while (this.inFlight >= this.app.maxConcurrentRequests)
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.inFlight++;
    try {
      const body = JSON.stringify(events.map((e) => ({ ...e, attemptNumber })));
      const timestamp = String(Date.now());
      const res = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'X-HubSpot-Signature-v3': hubSpotSignatureV3('POST', url, body, timestamp, secret),
          'X-HubSpot-Request-Timestamp': timestamp,
          // v1, still sent beside v3 for older receivers: hex SHA-256 of secret + body.
          'X-HubSpot-Signature': createHash('sha256').update(`${secret}${body}`).digest('hex'),
          'X-HubSpot-Signature-Version': 'v1',
        },
        body,
        signal: AbortSignal.timeout(this.settings.timeoutMs),
      });
      await res.arrayBuffer().catch(() => undefined);
      return res.status;
    } catch (error) {
      return error instanceof DOMException && error.name === 'TimeoutError' ? 'timeout' : 'network error';
    } finally {
      this.inFlight--;
      this.waiting.shift()?.();
    }
  }

  // Whether this batch is hit by the fault (and counts it off).
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
}

// HubSpot retries a connection failure, a timeout, a 5xx and a 429; another 4xx is final.
function retried(outcome: DeliveryAttempt['outcome']): boolean {
  if (typeof outcome !== 'number') return outcome !== 'dropped';
  return outcome >= 500 || outcome === 429;
}
