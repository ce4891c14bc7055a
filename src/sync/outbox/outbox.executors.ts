import { Injectable } from '@nestjs/common';
import type { BrokerageCrm } from '../../brokerages/brokerage-crm';
import type { CallOptions, CashOfferClient, CashOfferError } from '../../cash-offer';
import type { LoadedBrokerage } from '../../config/config.loader';
import type { OutboxCommand } from '../../ledger';

export interface OutboxContext {
  brokerage: LoadedBrokerage;
  cashOffer: CashOfferClient;
  crm: BrokerageCrm;
  signal: AbortSignal;
  // Set by the drain for `send`: the executor passes it to its one remote write, so the command is
  // marked `sending` only when the request is about to leave.
  call?: CallOptions;
}

export type OutboxReconciliation =
  | { found: true; result: unknown }
  // provablyAbsent: the service certainly has no such record, so sending again is safe.
  // hint: what the operator should check when it is not provable either way.
  | { found: false; provablyAbsent: boolean; hint: string };

// What one kind of outbox command does. The drain owns the states; an executor only talks to the
// service (send, reconcile) and to the CRM (writeBack, onRefused).
export interface OutboxExecutor {
  operation: string;
  // The remote write: exactly one call to the service, made with `ctx.call`. Throws CashOfferError;
  // its code decides retry, unknown or dead letter.
  send(command: OutboxCommand, ctx: OutboxContext): Promise<unknown>;
  // Applies a done command's result to the CRM. May run again after a failure: must be idempotent.
  writeBack(command: OutboxCommand, result: unknown, ctx: OutboxContext): Promise<void>;
  // The service refused the command for good: tell the agent on the CRM record.
  onRefused(command: OutboxCommand, error: CashOfferError, ctx: OutboxContext): Promise<void>;
  // For a command whose outcome is unknown: did the service apply it?
  reconcile(command: OutboxCommand, ctx: OutboxContext): Promise<OutboxReconciliation>;
}

// Flows register their executors in onModuleInit; the outbox-drain job looks them up by operation.
@Injectable()
export class OutboxExecutors {
  private readonly executors = new Map<string, OutboxExecutor>();

  register(executor: OutboxExecutor): void {
    if (this.executors.has(executor.operation))
      throw new Error(`an outbox executor for "${executor.operation}" is already registered`);
    this.executors.set(executor.operation, executor);
  }

  get(operation: string): OutboxExecutor | undefined {
    return this.executors.get(operation);
  }

  operations(): string[] {
    return [...this.executors.keys()];
  }
}
