import { BeforeApplicationShutdown, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { CashOfferClients } from '../brokerages/cash-offer-clients';
import { CashOfferError } from '../cash-offer';
import { ConfigService } from '../config/config.service';
import { CursorRepository } from '../ledger';
import { backoffDelayMs, type BackoffCurve } from '../common/backoff';
import { webhookUrl } from './webhook-secret';
import { WebhookUrlProbe } from './webhook-url.probe';

export type RegistrationOutcome = 'registered' | 'updated' | 'already registered' | 'failed';

export interface RegistrationReport {
  brokerageId: string;
  outcome: RegistrationOutcome;
  // The URL without its secret, safe to print.
  url: string;
  error?: string;
}

const STREAM = 'webhook-registration';
const REGISTRATION_BACKOFF: BackoffCurve = { baseMs: 5_000, capMs: 10 * 60_000, jitter: 'full' };

// Tells the service where to deliver each brokerage's events: POST /wh the first time, PATCH /wh
// when the URL (or its secret) changes. The ledger keeps a hash of the last registered URL, never
// the URL itself, because the URL carries the secret.
@Injectable()
export class WebhookRegistrationService implements OnModuleDestroy, BeforeApplicationShutdown {
  private readonly logger = new Logger(WebhookRegistrationService.name);
  private readonly retries = new Map<string, { timer: NodeJS.Timeout; attempt: number }>();
  private stopped = false;

  constructor(
    private readonly config: ConfigService,
    private readonly cashOffers: CashOfferClients,
    private readonly cursors: CursorRepository,
    private readonly probe: WebhookUrlProbe,
  ) {}

  // Every brokerage independently: one failing registration never stops the others.
  async registerAll(
    options: { force?: boolean; retryInBackground?: boolean } = {},
  ): Promise<RegistrationReport[]> {
    const brokerages = this.config.enabledBrokerages();
    return Promise.all(brokerages.map((b) => this.register(b.id, options)));
  }

  // `checkReachable` (the CLI): refuse to register an address where nothing answers. The daemon
  // registers at start before its own listener is up, so it does not check.
  async register(
    brokerageId: string,
    options: { force?: boolean; retryInBackground?: boolean; checkReachable?: boolean } = {},
  ): Promise<RegistrationReport> {
    const brokerage = this.config.get(brokerageId);
    if (!brokerage) throw new Error(`no brokerage "${brokerageId}" is configured`);
    const { publicBaseUrl } = brokerage.config.webhooks;
    const url = webhookUrl(publicBaseUrl, brokerageId, brokerage.secrets.webhookSecret);
    const printable = webhookUrl(publicBaseUrl, brokerageId, '<secret>');
    const urlHash = createHash('sha256').update(url).digest('hex');
    const previous = await this.cursors.get(brokerageId, STREAM);
    if (previous === urlHash && !options.force)
      return { brokerageId, outcome: 'already registered', url: printable };
    if (options.checkReachable) {
      const probe = await this.probe.check(publicBaseUrl);
      if (!probe.reachable)
        return {
          brokerageId,
          outcome: 'failed',
          url: printable,
          error: `webhooks.publicBaseUrl is not reachable: ${probe.reason}; the service could not deliver there (is the daemon's webhook listener running and reachable at that address?)`,
        };
    }
    try {
      const client = this.cashOffers.get(brokerageId);
      let outcome: RegistrationOutcome = 'registered';
      if (previous === null) await client.registerWebhook(url);
      else {
        outcome = 'updated';
        // A PATCH for an account the service has no URL for yet falls back to POST.
        await client.updateWebhook(url).catch(async (error: unknown) => {
          if (error instanceof CashOfferError && error.code === 'NOT_FOUND')
            return client.registerWebhook(url);
          throw error;
        });
      }
      // Shutting down while the call was in flight: the ledger may be closing, so record nothing; the
      // next start finds no matching hash and registers again (POST and PATCH are safe to repeat).
      if (this.stopped) return { brokerageId, outcome, url: printable };
      await this.cursors.commitPage(brokerageId, STREAM, urlHash);
      this.cancelRetry(brokerageId);
      this.logger.log(`webhook URL ${outcome} for ${brokerageId}: ${printable}`);
      return { brokerageId, outcome, url: printable };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.logger.error(`could not register the webhook URL of ${brokerageId}: ${message}`);
      if (options.retryInBackground) this.scheduleRetry(brokerageId);
      return { brokerageId, outcome: 'failed', url: printable, error: message };
    }
  }

  beforeApplicationShutdown(): void {
    this.stopped = true;
  }

  onModuleDestroy(): void {
    this.stopped = true;
    for (const id of [...this.retries.keys()]) this.cancelRetry(id);
  }

  private scheduleRetry(brokerageId: string): void {
    if (this.stopped) return;
    const attempt = (this.retries.get(brokerageId)?.attempt ?? 0) + 1;
    this.cancelRetry(brokerageId);
    const delay = backoffDelayMs(REGISTRATION_BACKOFF, attempt, { notBeforeMs: 1_000 });
    const timer = setTimeout(() => {
      // register() rejects when a reload removed the brokerage meanwhile; unhandled, that kills the daemon.
      this.register(brokerageId, { retryInBackground: true }).catch((error: unknown) => {
        this.retries.delete(brokerageId);
        this.logger.warn(`stopped retrying the webhook URL of ${brokerageId}: ${String(error)}`);
      });
    }, delay);
    timer.unref();
    this.retries.set(brokerageId, { timer, attempt });
    this.logger.warn(
      `will retry registering the webhook URL of ${brokerageId} in ${Math.round(delay / 1000)} s`,
    );
  }

  private cancelRetry(brokerageId: string): void {
    const entry = this.retries.get(brokerageId);
    if (entry) clearTimeout(entry.timer);
    this.retries.delete(brokerageId);
  }
}
