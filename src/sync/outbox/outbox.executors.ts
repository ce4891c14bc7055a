import { Injectable, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { discoverClasses } from '../../common/discovered-handlers';
import type { BrokerageCrm } from '../../brokerages/brokerage-crm';
import type { CallOptions, CashOfferClient } from '../../cash-offer';
import type { RemoteError } from '../../common/remote-error';
import type { LoadedBrokerage } from '../../config/config.loader';
import type { OutboxCommand } from '../../ledger';
import { OutboxExecutor } from './outbox-executor.decorator';

export interface OutboxContext {
  brokerage: LoadedBrokerage;
  cashOffer: CashOfferClient;
  // Resolved on first use (it reads the CRM's pipelines): a command that never touches the CRM,
  // such as a webhook registration, is not held up when the CRM is down.
  crm(): Promise<BrokerageCrm>;
  signal: AbortSignal;
  // Set by the drain for `send`: the executor passes it to its one remote write, so the command is
  // marked `sending` only when the request is about to leave.
  call?: CallOptions;
  // Set by the drain for `send`: an executor whose write's answer a reconcile may never find again
  // (a counter on a service that lists a countered offer as `active` and names no counter on it)
  // keeps it the moment it comes, before the reads and writes that follow; a crash after that leaves
  // the command with its answer, finished by the next drain, not of unknown outcome.
  keepAnswer?: (result: unknown) => Promise<void>;
}

export type OutboxReconciliation =
  | { found: true; result: unknown }
  // provablyAbsent: the service certainly has no such record, so sending again is safe.
  // hint: what the operator should check when it is not provable either way.
  // note: what this look saw that a later look at the same command must know (kept on the command,
  // as its result, until the command is answered); absent, the note kept so far stays.
  | { found: false; provablyAbsent: boolean; hint: string; note?: unknown };

export type ReconcileCause = 'lost-answer' | 'refusal';

// What one kind of outbox command does. The drain owns the states; an executor makes the command's
// one write (send) and answers for it (reconcile, onRefused).
export interface CommandExecutor {
  // The write: exactly one call, made after `ctx.call.beforeSend()` (the service client calls it for
  // a Cash Offer request); after a refusal it answers by sending again in another form, one more,
  // with `ctx.call.refusedBeforeRetry()` between. Throws; a RemoteError's code decides retry, unknown
  // or dead letter (outbox-decision.ts).
  send(command: OutboxCommand, ctx: OutboxContext): Promise<unknown>;
  // Applies a done command's result to the CRM, run as a `write_back` command of its own (see
  // CrmWriteBackExecutor). May run again after a failure: must be idempotent. Without it, a done
  // command has nothing to write back.
  writeBack?(command: OutboxCommand, result: unknown, ctx: OutboxContext): Promise<void>;
  // What the ledger must know once the write is done, written before the command is marked done
  // (so a done command always has it, whatever becomes of its CRM write-back): ledger rows only, no
  // remote call. May run again after a crash: must be idempotent.
  recordDone?(command: OutboxCommand, result: unknown, ctx: OutboxContext): Promise<void>;
  // The remote refused the command for good: tell the agent on the CRM record.
  onRefused?(command: OutboxCommand, error: RemoteError, ctx: OutboxContext): Promise<void>;
  // For a command whose outcome is unknown: did the write take effect? `cause` says why it is asked:
  // its answer was lost (`lost-answer`), or the service refused it in words that may only mean it is
  // already in effect (`refusal`, refusal.check.ts); a write the service refused was answered, so an
  // executor may read the same facts differently for each.
  reconcile(
    command: OutboxCommand,
    ctx: OutboxContext,
    cause?: ReconcileCause,
  ): Promise<OutboxReconciliation>;
  // True when `reconcile` also tells a service's 400/422 refusal that only says the write is already
  // in effect (a service that answers an impossible transition so instead of 409; refusal.check.ts).
  readonly refusalsReconciled?: boolean;
  // The result this command finishes with when an operator, having checked the service, confirms it
  // received the write whose answer was lost (`cli confirm-received`): what `send` returns for a 2xx
  // with no body. Absent where the result must carry what only the service's answer gives (a CRM
  // task's id) or where the command is safely sent again instead (a webhook URL): such a command is
  // not confirmed that way.
  receivedWithoutAnswer?(command: OutboxCommand, ctx: OutboxContext): unknown;
  // True when a refusal says the service already holds what the command makes (a create refused as a
  // duplicate of the record an earlier, lost send made): the command was received after all, so the
  // drain looks for it as for a lost answer instead of giving it up.
  heldAlready?(error: RemoteError): boolean;
  // When the write stops being of use (epoch ms), if it ever does: a clock's reminder for an offer
  // that runs out then. The drain sends such commands ahead of the rest, the nearest first (send-order.ts).
  deadline?(command: OutboxCommand): number | undefined;
  // True when the command writes the CRM alone and never calls the Cash Offer service (an offer
  // clock's task). The drain sends such commands beside the service's: a slow or rate-limited
  // service, each of its writes taking seconds, would otherwise keep a task open on an offer that
  // was answered minutes ago (readings sweep 1583).
  readonly crmOnly?: boolean;
  // What two of the drain's commands in hand at once must never share (send-order.ts), where it is
  // more than the record the command is queued for: an offer request's decisions, counters, updates
  // and photos, queued for different CRM records, go to the service one after another in order.
  orderingKey?(command: OutboxCommand): string;
}

// The drain's ordering key of a command: its executor's, else the record it is queued for.
export function orderingKeyOf(command: OutboxCommand, executor: CommandExecutor | undefined): string {
  return executor?.orderingKey?.(command) ?? command.recordRef;
}

// The ordering key of every command that writes an offer request or its offers.
export function offerRequestOrderingKey(requestId: number): string {
  return `offer_request:${requestId}`;
}

// Every @OutboxExecutor provider, found at start; the drain looks them up by operation.
// `register` adds a stand-in (the drain's e2e test scripts one).
@Injectable()
export class OutboxExecutors implements OnModuleInit {
  private readonly executors = new Map<string, CommandExecutor>();

  constructor(private readonly discovery: DiscoveryService) {}

  onModuleInit(): void {
    for (const { metadata, instance, className } of discoverClasses<string, CommandExecutor>(
      this.discovery,
      OutboxExecutor,
    ))
      this.register(metadata, instance, className);
  }

  register(operation: string, executor: CommandExecutor, by = 'a stand-in'): void {
    if (this.executors.has(operation))
      throw new Error(`an outbox executor for "${operation}" is already registered (again by ${by})`);
    this.executors.set(operation, executor);
  }

  get(operation: string): CommandExecutor | undefined {
    return this.executors.get(operation);
  }

  operations(): string[] {
    return [...this.executors.keys()];
  }
}
