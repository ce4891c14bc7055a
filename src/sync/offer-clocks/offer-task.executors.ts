import { Injectable } from '@nestjs/common';
import { Clock } from '../../common/clock';
import type { RemoteError } from '../../common/remote-error';
import type { CrmRecordRef } from '../../crm/crm.types';
import { LinkRepository, RecordErrorRepository, type OutboxCommand } from '../../ledger';
import { OutboxExecutor } from '../outbox/outbox-executor.decorator';
import type { CommandExecutor, OutboxContext, OutboxReconciliation } from '../outbox/outbox.executors';
import { COMPLETE_OFFER_TASK, CREATE_OFFER_TASK, OFFER_TASK_LINK } from './offer-clocks.constants';

export interface CreateOfferTaskPayload {
  key: string;
  offerId: number;
  expiresAt: string;
  // The offer record the task hangs on.
  about: CrmRecordRef;
  subject: string;
  body: string;
  dueAt: string;
  // The CRM user to assign (the broker); else the owner of `ownerOf` (the listing deal, for the agent).
  ownerId?: string;
  ownerOf?: CrmRecordRef;
}

export interface CompleteOfferTaskPayload {
  key: string;
  taskId: string;
}

// One CRM task of an offer clock. Made once per key: the outbox keeps the command's key, and a
// create whose answer was lost is found again on the record by the key the adapter stored on it.
@Injectable()
@OutboxExecutor(CREATE_OFFER_TASK)
export class CreateOfferTaskExecutor implements CommandExecutor {
  readonly crmOnly = true;

  constructor(
    private readonly links: LinkRepository,
    private readonly recordErrors: RecordErrorRepository,
    private readonly clock: Clock,
  ) {}

  async send(command: OutboxCommand, ctx: OutboxContext): Promise<{ id: string } | { skipped: string }> {
    const task = command.payload as CreateOfferTaskPayload;
    // Queued while the offer was open, sent late (kills, a CRM outage): a reminder for an offer that
    // has run out would only stand open on an Expired record until the next pass closed it.
    if (this.clock.nowMs() >= Date.parse(task.expiresAt))
      return { skipped: `not made: it expired at ${task.expiresAt}, before the task could be sent` };
    const crm = await ctx.crm();
    // `sending` is marked as the create leaves, after the CRM's rate limiter: a drain that waited
    // there while another took the command over (a lease run out under load) must not send it too.
    return crm.port.createTask({
      ...(ctx.call?.beforeSend ? { beforeSend: ctx.call.beforeSend } : {}),
      ...(ctx.call?.refusedBeforeRetry ? { refusedBeforeRetry: ctx.call.refusedBeforeRetry } : {}),
      key: task.key,
      about: task.about,
      subject: task.subject,
      body: task.body,
      dueAt: new Date(task.dueAt),
      ...(task.ownerId ? { ownerId: task.ownerId } : {}),
      ...(task.ownerOf ? { ownerOf: task.ownerOf } : {}),
    });
  }

  // A reminder is of no use once its offer has run out (send skips it then): sent ahead of the
  // drain's backlog, the soonest to expire first.
  deadline(command: OutboxCommand): number | undefined {
    const expires = Date.parse((command.payload as CreateOfferTaskPayload).expiresAt);
    return Number.isFinite(expires) ? expires : undefined;
  }

  async recordDone(command: OutboxCommand, result: unknown): Promise<void> {
    const task = command.payload as CreateOfferTaskPayload;
    const id = (result as { id?: string } | null)?.id;
    if (!id) return;
    await this.links.upsertLinks(command.brokerageId, OFFER_TASK_LINK, [
      { remoteId: task.key, crmId: id, contentHash: JSON.stringify({ o: task.offerId, e: task.expiresAt }) },
    ]);
  }

  async onRefused(command: OutboxCommand, error: RemoteError): Promise<void> {
    const task = command.payload as CreateOfferTaskPayload;
    await this.recordErrors.record({
      brokerageId: command.brokerageId,
      recordKind: 'offer',
      recordRef: String(task.offerId),
      message: `the CRM refused the task "${task.subject}" for offer ${task.offerId}: ${error.message}`,
      code: error.code,
    });
  }

  async reconcile(command: OutboxCommand, ctx: OutboxContext): Promise<OutboxReconciliation> {
    const task = command.payload as CreateOfferTaskPayload;
    const crm = await ctx.crm();
    const found = (await crm.port.findTasks(task.about)).find((t) => t.key === task.key);
    return found
      ? { found: true, result: { id: found.id } }
      : { found: false, provablyAbsent: true, hint: `no task with key ${task.key} on the offer record` };
  }
}

// Closes a task the daemon made, once its offer is answered or expired. Safe to repeat: completing a
// completed (or deleted) task changes nothing, and a task the agent completed stays completed.
@Injectable()
@OutboxExecutor(COMPLETE_OFFER_TASK)
export class CompleteOfferTaskExecutor implements CommandExecutor {
  readonly crmOnly = true;

  constructor(private readonly links: LinkRepository) {}

  async send(command: OutboxCommand, ctx: OutboxContext): Promise<null> {
    const crm = await ctx.crm();
    await ctx.call?.beforeSend?.();
    await crm.port.completeTask((command.payload as CompleteOfferTaskPayload).taskId);
    return null;
  }

  async recordDone(command: OutboxCommand): Promise<void> {
    await this.links.markGone(command.brokerageId, OFFER_TASK_LINK, [
      (command.payload as CompleteOfferTaskPayload).key,
    ]);
  }

  reconcile(): Promise<OutboxReconciliation> {
    return Promise.resolve({
      found: false,
      provablyAbsent: true,
      hint: 'completing a task is safe to repeat',
    });
  }
}
