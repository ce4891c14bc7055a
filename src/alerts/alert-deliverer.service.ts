import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { backoffDelayMs, type BackoffCurve } from '../common/backoff';
import { Clock } from '../common/clock';
import { CoalescedTask } from '../common/coalesced-task';
import { DAEMON_SETTINGS, type DaemonSettings } from '../config/daemon-settings';
import { AlertRepository, type AlertDelivery } from '../ledger';
import { AlertRoutes } from './alert-channels';
import type { AlertNotice } from './alert-notice';

// Retries of one notification: from 5 s, doubling, at most 30 min apart.
const RETRY: BackoffCurve = { baseMs: 5_000, capMs: 30 * 60_000, jitter: 'full' };
// A sender that stopped mid-delivery (a kill) leaves it `sending`; it is due again after this.
const LEASE_MS = 60_000;
const BATCH = 20;

// Sends the notifications the monitor wrote to the ledger, off the sync path: a channel that is
// slow or down delays only its own notifications. Each is retried with backoff until delivered or
// ALERT_DELIVERY_ATTEMPTS are used up (then `failed`, shown on the status page and in `cli alerts`).
@Injectable()
export class AlertDeliverer implements OnApplicationShutdown {
  private readonly logger = new Logger('Alerts');
  private readonly passes = new CoalescedTask(
    () => this.pass(),
    (error) => this.logger.warn(`alert delivery pass failed: ${(error as Error).message}`),
  );

  constructor(
    private readonly alerts: AlertRepository,
    private readonly routes: AlertRoutes,
    private readonly clock: Clock,
    @Inject(DAEMON_SETTINGS) private readonly settings: Pick<DaemonSettings, 'alerts'>,
  ) {}

  // Sends what is due; a call while a pass is under way makes it look once more when done.
  kick(): Promise<void> {
    return this.passes.run();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.passes.close();
  }

  private async pass(): Promise<void> {
    for (;;) {
      const due = await this.alerts.claimDue(BATCH, LEASE_MS);
      if (due.length === 0) return;
      await Promise.all(due.map((d) => this.deliver(d)));
      if (due.length < BATCH || this.passes.isClosed) return;
    }
  }

  private async deliver(delivery: AlertDelivery): Promise<void> {
    const channel = this.routes.channel(delivery.channel);
    if (!channel) {
      await this.alerts.failed(delivery.id, `the ${delivery.channel} channel is no longer configured`);
      return;
    }
    try {
      await channel.send(delivery.notice as unknown as AlertNotice, delivery.id);
      await this.alerts.delivered(delivery.id);
    } catch (error) {
      const why = describeFailure(error);
      const max = this.settings.alerts.deliveryAttempts;
      if (delivery.attempts >= max) {
        this.logger.error(
          `alert ${delivery.alertKey} could not be delivered to ${delivery.channel} after ${delivery.attempts} attempt(s): ${why}`,
        );
        await this.alerts.failed(delivery.id, why);
      } else {
        const at = new Date(this.clock.nowMs() + backoffDelayMs(RETRY, delivery.attempts));
        this.logger.warn(
          `alert ${delivery.alertKey} to ${delivery.channel}: attempt ${delivery.attempts} of ${max} failed (${why}); next at ${at.toISOString()}`,
        );
        await this.alerts.retryAt(delivery.id, why, at);
      }
    }
  }
}

// What went wrong, without the URL (a Slack URL is itself the secret).
function describeFailure(error: unknown): string {
  const e = error as { response?: { status?: number }; code?: string; message?: string };
  if (e?.response?.status) return `the receiver answered ${e.response.status}`;
  if (e?.code && typeof e.code === 'string')
    return `${e.code}${e.message ? `: ${e.message.replace(/https?:\/\/\S+/g, '<url>')}` : ''}`;
  return (e?.message ?? String(error))
    .replace(/https?:\/\/\S+/g, '<url>')
    .replace(/smtps?:\/\/\S+/g, '<url>');
}
