import { Injectable } from '@nestjs/common';
import { ConfigService } from '../config/config.service';
import type { OutboxCommand } from '../ledger';
import { OutboxDrainService } from '../sync/outbox/outbox-drain.service';
import type { RegisterWebhookResult } from './webhook-registration.executor';
import { registrationTarget, type RegistrationOutcome } from './webhook-registration';
import { WebhookRegistrationQueue } from './webhook-registration.queue';
import { WebhookUrlProbe } from './webhook-url.probe';

export type { RegistrationOutcome } from './webhook-registration';

export interface RegistrationReport {
  brokerageId: string;
  outcome: RegistrationOutcome;
  // The URL without its secret, safe to print.
  url: string;
  error?: string;
}

// Registration as the operator asks for it (`register-webhooks`): the brokerage's `register_webhook`
// command is queued (or the one already queued is taken) and run at once through the outbox, so the
// outcome is reported now and a failure stays in the outbox, retried by the daemon's drain.
@Injectable()
export class WebhookRegistrationService {
  constructor(
    private readonly config: ConfigService,
    private readonly queue: WebhookRegistrationQueue,
    private readonly drain: OutboxDrainService,
    private readonly probe: WebhookUrlProbe,
  ) {}

  // Every brokerage independently: one failing registration never stops the others.
  async registerAll(options: { force?: boolean } = {}): Promise<RegistrationReport[]> {
    const brokerages = this.config.enabledBrokerages();
    return Promise.all(brokerages.map((b) => this.register(b.id, options)));
  }

  // `checkReachable`: refuse to register an address where nothing answers (the service would
  // deliver into the void).
  async register(
    brokerageId: string,
    options: { force?: boolean; checkReachable?: boolean } = {},
  ): Promise<RegistrationReport> {
    const brokerage = this.config.get(brokerageId);
    if (!brokerage) throw new Error(`no brokerage "${brokerageId}" is configured`);
    const url = registrationTarget(brokerage).printable;
    if (options.checkReachable) {
      const probe = await this.probe.check(brokerage.config.webhooks.publicBaseUrl);
      if (!probe.reachable)
        return {
          brokerageId,
          outcome: 'failed',
          url,
          error: `webhooks.publicBaseUrl is not reachable: ${probe.reason}; the service could not deliver there (is the daemon's webhook listener running and reachable at that address?)`,
        };
    }
    const queued = await this.queue.enqueue(brokerage, { force: options.force });
    if (!queued) return { brokerageId, outcome: 'already registered', url };
    // When the daemon's drain takes the same command at the same moment, it is that drain's to
    // send: the command comes back `sending` and is reported so.
    const command = await this.drain.executeNow(brokerage, queued, new AbortController().signal);
    return { brokerageId, url, ...reportOf(command) };
  }
}

function reportOf(command: OutboxCommand): Pick<RegistrationReport, 'outcome' | 'error'> {
  if (command.state === 'done') {
    const { outcome } = (command.result ?? { outcome: 'registered' }) as RegisterWebhookResult;
    return outcome === 'superseded'
      ? { outcome: 'failed', error: 'the webhook URL changed while it was being registered; run again' }
      : { outcome };
  }
  const id = `outbox command ${command.id}`;
  if (command.state === 'sending' || command.state === 'unknown')
    return { outcome: 'failed', error: `${id} is being sent by the daemon's outbox drain` };
  const next =
    command.state === 'dead'
      ? `${id} gave up; the next start or register-webhooks tries it again`
      : `${id} is retried by the daemon's outbox drain`;
  return { outcome: 'failed', error: `${command.lastError ?? 'not sent'}; ${next}` };
}
