import { Injectable, Logger } from '@nestjs/common';
import { isCashOfferError, type CallOptions, type CashOfferClient } from '../cash-offer';
import { CursorRepository, RecordErrorRepository, type OutboxCommand } from '../ledger';
import { OutboxExecutor } from '../sync/outbox/outbox-executor.decorator';
import type { CommandExecutor, OutboxContext, OutboxReconciliation } from '../sync/outbox/outbox.executors';
import {
  readRegisterWebhookPayload,
  REGISTER_WEBHOOK_OPERATION,
  REGISTRATION_STREAM,
  registrationTarget,
  type RegistrationOutcome,
} from './webhook-registration';

export interface RegisterWebhookResult {
  outcome: RegistrationOutcome;
}

// The `register_webhook` command: tells the service the brokerage's webhook URL, POST /wh the first
// time, PATCH /wh when it changed, and records the URL's hash in the ledger. Queued at start by
// WebhookRegistrationOnConfig and run by the drain; `register-webhooks` runs it at once.
@Injectable()
@OutboxExecutor(REGISTER_WEBHOOK_OPERATION)
export class WebhookRegistrationExecutor implements CommandExecutor {
  private readonly logger = new Logger('WebhookRegistration');

  constructor(
    private readonly cursors: CursorRepository,
    private readonly recordErrors: RecordErrorRepository,
  ) {}

  async send(command: OutboxCommand, ctx: OutboxContext): Promise<RegisterWebhookResult> {
    const { brokerageId, urlHash } = readRegisterWebhookPayload(command.payload);
    const target = registrationTarget(ctx.brokerage);
    // The command was queued for a URL the config no longer has (a secret rotated since): the
    // command for the current URL registers that one, and this one must not undo it.
    if (target.urlHash !== urlHash) {
      this.logger.log(
        `${brokerageId}: webhook registration (outbox command ${command.id}) superseded by a newer webhook URL`,
      );
      return { outcome: 'superseded' };
    }
    const previous = await this.cursors.get(brokerageId, REGISTRATION_STREAM);
    let outcome: RegistrationOutcome;
    try {
      outcome = await this.sendUrl(ctx.cashOffer, target.url, previous === null, ctx.call);
    } catch (error) {
      // The service's answer (or its absence); anything else, such as another drain having taken
      // the command, is the drain's to handle and report.
      if (isCashOfferError(error))
        this.logger.warn(
          `could not register the webhook URL of ${brokerageId} (outbox command ${command.id}): ${error.message}`,
        );
      throw error;
    }
    await this.cursors.commitPage(brokerageId, REGISTRATION_STREAM, urlHash);
    await this.recordErrors.resolve(brokerageId, 'webhook', brokerageId);
    this.logger.log(`webhook URL ${outcome} for ${brokerageId}: ${target.printable}`);
    return { outcome };
  }

  // POST and PATCH /wh set the account's one URL: repeating either is harmless.
  reconcile(): Promise<OutboxReconciliation> {
    return Promise.resolve({
      found: false,
      provablyAbsent: true,
      hint: 'registering a webhook URL is repeated',
    });
  }

  private async sendUrl(
    client: CashOfferClient,
    url: string,
    first: boolean,
    call: CallOptions | undefined,
  ): Promise<RegistrationOutcome> {
    const post = () => client.registerWebhook(url, call);
    const patch = () => client.updateWebhook(url, call);
    if (first) {
      await orTheOther(post, patch);
      return 'registered';
    }
    await orTheOther(patch, post);
    return 'updated';
  }
}

// Which of POST and PATCH /wh a service takes when is not shown: a PATCH before any URL is set may be
// refused (404, or 400/422), and so may a second POST (409). Both set the account's one URL, so a
// refusal of one is answered by the other, once; a refused key or an unreachable service is not.
const OTHER_METHOD_MAY_DO = new Set(['NOT_FOUND', 'CONFLICT', 'INVALID_RECORD']);

async function orTheOther(first: () => Promise<unknown>, other: () => Promise<unknown>): Promise<void> {
  try {
    await first();
  } catch (error) {
    if (!(isCashOfferError(error) && OTHER_METHOD_MAY_DO.has(error.code))) throw error;
    await other();
  }
}
