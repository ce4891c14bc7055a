import { Injectable } from '@nestjs/common';
import { Clock } from '../common/clock';
import type { LoadedBrokerage } from '../config/config.loader';
import { CursorRepository, OutboxRepository, type OutboxCommand } from '../ledger';
import { REGISTRATION_STREAM, registerWebhookCommand, registrationTarget } from './webhook-registration';

// Queues the `register_webhook` command of a brokerage whose registered URL (its hash in the ledger)
// is not the configured one. Shared by the daemon's start and `register-webhooks`.
@Injectable()
export class WebhookRegistrationQueue {
  constructor(
    private readonly outbox: OutboxRepository,
    private readonly cursors: CursorRepository,
    private readonly clock: Clock,
  ) {}

  // The live command for the brokerage's current URL, queued at most once per URL; undefined when
  // that URL is registered already (unless `force`).
  async enqueue(
    brokerage: LoadedBrokerage,
    options: { force?: boolean } = {},
  ): Promise<OutboxCommand | undefined> {
    const { urlHash } = registrationTarget(brokerage);
    const registered = await this.cursors.get(brokerage.id, REGISTRATION_STREAM);
    if (registered === urlHash && !options.force) return undefined;
    // A done command for this URL registered it before it was replaced (or `force` asks again):
    // the next one follows it, so every caller lands on the same live command.
    let after: number | undefined;
    for (;;) {
      const { command } = await this.outbox.enqueue(registerWebhookCommand(brokerage.id, urlHash, after));
      if (command.state !== 'done') return this.dueNow(command);
      after = command.id;
    }
  }

  // A start, or an operator running `register-webhooks`, is when a key or an address gets fixed, as
  // it was when registration was a direct call at start: a command that gave up is tried again
  // (attempts from zero, as a replay), and one waiting out its backoff is due at once (attempts kept).
  private async dueNow(command: OutboxCommand): Promise<OutboxCommand> {
    if (command.state === 'dead') {
      await this.outbox.replay({ ids: [command.id], states: ['dead'] });
      return (await this.outbox.get(command.id)) ?? command;
    }
    const waiting = command.nextAttemptAt !== null && command.nextAttemptAt.getTime() > this.clock.nowMs();
    if ((command.state === 'failed' || command.state === 'pending') && waiting)
      return this.outbox.defer(command.id, command.lastError ?? 'due again', this.clock.now());
    return command;
  }
}
