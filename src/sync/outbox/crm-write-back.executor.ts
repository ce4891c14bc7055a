import { Injectable } from '@nestjs/common';
import { OutboxRepository, outboxKey, type NewOutboxCommand, type OutboxCommand } from '../../ledger';
import { OutboxExecutor } from './outbox-executor.decorator';
import {
  OutboxExecutors,
  type CommandExecutor,
  type OutboxContext,
  type OutboxReconciliation,
} from './outbox.executors';

// The CRM write-back after a remote write is a command of its own, so a failure or a crash before
// it finishes is retried later without ever repeating the remote write.
export const WRITE_BACK_OPERATION = 'write_back';

interface WriteBackPayload {
  commandId?: number;
  result?: unknown;
}

// The `write_back` command: applies a done command's result to the CRM through that command's own
// executor (its writeBack). Enqueued by the drain in the same step that marks the remote write done.
@Injectable()
@OutboxExecutor(WRITE_BACK_OPERATION)
export class CrmWriteBackExecutor implements CommandExecutor {
  constructor(
    private readonly outbox: OutboxRepository,
    private readonly executors: OutboxExecutors,
  ) {}

  // The write-back command for `command`, done with `result`; keyed by the command, so it is queued once.
  static commandFor(command: OutboxCommand, result: unknown): NewOutboxCommand {
    return {
      brokerageId: command.brokerageId,
      idempotencyKey: CrmWriteBackExecutor.keyOf(command),
      operation: WRITE_BACK_OPERATION,
      recordRef: command.recordRef,
      payload: { commandId: command.id, result: result ?? null } satisfies WriteBackPayload,
    };
  }

  // The idempotency key of `command`'s write-back.
  static keyOf(command: OutboxCommand): string {
    return outboxKey(command.brokerageId, command.recordRef, `${WRITE_BACK_OPERATION}:${command.id}`);
  }

  // The id of the command a write-back command writes back; undefined for any other command.
  static originOf(command: OutboxCommand): number | undefined {
    if (command.operation !== WRITE_BACK_OPERATION) return undefined;
    return (command.payload as WriteBackPayload | null)?.commandId;
  }

  async send(command: OutboxCommand, ctx: OutboxContext): Promise<null> {
    // The CRM write is this command's remote call: `sending` from here, so a failure counts an attempt.
    await ctx.call?.beforeSend?.();
    const payload = command.payload as WriteBackPayload | null;
    const original = payload?.commandId === undefined ? null : await this.outbox.get(payload.commandId);
    if (!original)
      throw new Error(`the outbox command ${String(payload?.commandId)} it writes back is not in the ledger`);
    const executor = this.executors.get(original.operation);
    if (!executor?.writeBack)
      throw new Error(`no executor writes back "${original.operation}" (outbox command ${original.id})`);
    await executor.writeBack(original, original.result ?? payload?.result ?? null, ctx);
    return null;
  }

  // A CRM write-back caught mid-call by a crash is safe to repeat: it writes the same values again.
  reconcile(): Promise<OutboxReconciliation> {
    return Promise.resolve({ found: false, provablyAbsent: true, hint: 'a CRM write-back is repeated' });
  }
}
