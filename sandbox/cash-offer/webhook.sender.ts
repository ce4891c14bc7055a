import { Agent, ClientRequest, request } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { Logger } from '@nestjs/common';
import { FaultInjector } from './fault.injector';
import { SandboxClock } from './sandbox.clock';
import { SandboxStore } from './sandbox.store';

// How one event goes: its method, the Content-Type its JSON body declares (the `eventContentType`
// reading), and whether a failed delivery is tried again (the `eventDelivery` reading).
export interface DeliveryForm {
  method: 'POST' | 'PATCH';
  contentType: string;
  retried: boolean;
}

export interface WebhookSenderOptions {
  retryDelaysMs: number[];
  timeoutMs: number;
}

// Delivers events as a real sender would: POST JSON, a timeout, retries with backoff on a
// non-2xx or a timeout, and every attempt in the delivery log. Faults may drop, duplicate or
// delay (reorder) deliveries.
export class WebhookSender {
  private readonly logger = new Logger('CashOfferSandboxWebhooks');
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly inflight = new Set<ClientRequest>();
  // No keep-alive: a receiver a test starts must be able to close at once.
  private readonly agent = new Agent({ keepAlive: false });
  private readonly httpsAgent = new HttpsAgent({ keepAlive: false });
  private closed = false;
  private epoch = 0;

  constructor(
    private readonly store: SandboxStore,
    private readonly clock: SandboxClock,
    private readonly faults: FaultInjector,
    private readonly options: WebhookSenderOptions,
  ) {}

  send(url: string, event: Record<string, unknown>, how: Partial<DeliveryForm> = {}): void {
    const form: DeliveryForm = { method: 'POST', contentType: 'application/json', retried: true, ...how };
    const deliveryId = this.store.nextDeliveryId();
    const f = this.faults.webhookFaults();
    if (this.faults.random.chance(f?.dropRate)) {
      this.log(deliveryId, 1, url, event, null, 'dropped by fault injection', 'dropped', false);
      return;
    }
    let copies = 0;
    const maxDuplicates = f?.maxDuplicates ?? 1;
    while (copies < maxDuplicates && this.faults.random.chance(f?.duplicateRate)) copies++;
    for (let i = 0; i <= copies; i++) {
      const delay = f?.reorderWindowMs ? this.faults.random.int(0, f.reorderWindowMs) : 0;
      this.later(delay, () => this.attempt(deliveryId, url, event, 1, i > 0, form));
    }
  }

  private later(ms: number, fn: () => void): void {
    if (this.closed) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      fn();
    }, ms);
    this.timers.add(timer);
  }

  private attempt(
    deliveryId: number,
    url: string,
    event: Record<string, unknown>,
    attempt: number,
    duplicate: boolean,
    form: DeliveryForm,
  ): void {
    if (this.closed) return;
    const epoch = this.epoch;
    this.post(url, event, form.method, form.contentType, (status, error) => {
      // A reset happened meanwhile: this delivery belongs to the state that was emptied.
      if (epoch !== this.epoch) return;
      const ok = status !== null && status >= 200 && status < 300;
      this.log(deliveryId, attempt, url, event, status, error, ok ? 'delivered' : 'failed', duplicate);
      if (ok || this.closed) return;
      const delay = form.retried ? this.options.retryDelaysMs[attempt - 1] : undefined;
      if (delay === undefined) {
        this.log(
          deliveryId,
          attempt,
          url,
          event,
          status,
          form.retried ? 'gave up after the last retry' : 'not retried (eventDelivery: once)',
          'gave_up',
          duplicate,
        );
        this.logger.warn(`gave up delivering ${String(event.event)} to ${url} after ${attempt} attempts`);
        return;
      }
      this.later(delay, () => this.attempt(deliveryId, url, event, attempt + 1, duplicate, form));
    });
  }

  private post(
    url: string,
    event: Record<string, unknown>,
    method: 'POST' | 'PATCH',
    contentType: string,
    done: (status: number | null, error: string | null) => void,
  ): void {
    let finished = false;
    const finish = (status: number | null, error: string | null): void => {
      if (finished) return;
      finished = true;
      done(status, error);
    };
    const body = JSON.stringify(event);
    try {
      const https = url.startsWith('https:');
      const req = (https ? httpsRequest : request)(url, {
        method,
        agent: https ? this.httpsAgent : this.agent,
        headers: { 'content-type': contentType, 'content-length': Buffer.byteLength(body) },
        timeout: this.options.timeoutMs,
      });
      req.on('response', (res) => {
        res.resume();
        res.on('end', () => finish(res.statusCode ?? null, null));
        res.on('error', (e) => finish(res.statusCode ?? null, e.message));
      });
      req.on('timeout', () => {
        req.destroy();
        finish(null, `no answer within ${this.options.timeoutMs} ms`);
      });
      req.on('error', (e) => finish(null, e.message));
      req.on('close', () => this.inflight.delete(req));
      this.inflight.add(req);
      req.end(body);
    } catch (e) {
      finish(null, e instanceof Error ? e.message : String(e));
    }
  }

  private log(
    deliveryId: number,
    attempt: number,
    url: string,
    event: Record<string, unknown>,
    status: number | null,
    error: string | null,
    outcome: 'delivered' | 'failed' | 'dropped' | 'gave_up',
    duplicate: boolean,
  ): void {
    this.store.logDelivery({
      delivery_id: deliveryId,
      attempt,
      url,
      event,
      status,
      error,
      at: this.clock.nowIso(),
      outcome,
      duplicate,
    });
  }

  // Drops every pending retry and in-flight delivery (control reset).
  cancelPending(): void {
    this.epoch++;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    for (const req of this.inflight) req.destroy();
  }

  close(): void {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    for (const req of this.inflight) req.destroy();
    this.agent.destroy();
    this.httpsAgent.destroy();
  }
}
