import { Injectable, Logger } from '@nestjs/common';
import type { BrokerageCrm } from '../../brokerages/brokerage-crm';
import { BrokerageCrms } from '../../brokerages/brokerage-crms';
import { CashOfferClients } from '../../brokerages/cash-offer-clients';
import { CashOfferError, type CallOptions } from '../../cash-offer';
import { RemoteError } from '../../common/remote-error';
import { Clock } from '../../common/clock';
import type { LoadedBrokerage } from '../../config/config.loader';
import {
  keptAnswerOf,
  LedgerStateError,
  OutboxCommand,
  OutboxRepository,
  RecordErrorRepository,
  type NewHistoryEntry,
} from '../../ledger';
import { MetricsService } from '../../observability/metrics/metrics.service';
import { emptyCounts, type JobContext, type JobCounts, type JobResult } from '../../scheduler/job.types';
import { errorMessage } from '../common/job-counts';
import { DecisionHistoryRecorder } from '../history/decision-history.recorder';
import { CrmWriteBackExecutor } from './crm-write-back.executor';
import { AwaitingEvidenceError } from './awaiting-evidence.error';
import { outboxDecision } from './outbox-decision';
import { mayAlreadyBeInEffect } from './refusal.check';
import { OutboxContext, OutboxExecutors, orderingKeyOf } from './outbox.executors';
import { runLanes, sendLanes, sendOrder } from './send-order';
import { drainRunBudget, leftForNextRun } from '../../scheduler/drain-run.budget';
import {
  OUTBOX_MAX_ATTEMPTS,
  outboxRetryDelayMs,
  reconcileDelayMs,
  splitRecordRef,
} from './outbox-retry.policy';

// Re-exported for the tests and tools that look for write-back commands in the ledger.
export { WRITE_BACK_OPERATION } from './crm-write-back.executor';
const BATCH = 200;
// What the history and the record say of a command finished on the operator's word.
const CONFIRMED_RECEIVED =
  'the operator confirmed the service received it (its answer was lost; cli confirm-received)';
// What the history says of a command finished with the answer kept when it came (answerKept).
const ANSWER_KEPT = 'the service answered it, and its answer was kept';
// How long a drain works through the batch it claimed before it looks again for commands with a
// deadline queued meanwhile (an agent's decision, a reminder for an offer about to run out), so a
// backlog delays them by about this much, not by the whole batch (send-order.ts).
const RECLAIM_AFTER_MS = 1000;
// Service commands a drain has in hand at once, one per ordering key (send-order.ts). Three keeps a
// held answer from stalling the rest without crowding a service's per-second limit (the client's
// limiter paces them all).
const SERVICE_LANE_WIDTH = 3;
// Unknown outcomes looked at per drain run: a budget, so a backlog of them never turns every drain
// into a long scan of the service's lists.
const RECONCILE_BUDGET = 50;

// Resolves RECLAIM_AFTER_MS from now, or sooner when `ended` does.
async function lookAgainSoon(ended: Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    ended,
    new Promise<void>((resolve) => (timer = setTimeout(resolve, RECLAIM_AFTER_MS))),
  ]);
  clearTimeout(timer);
}

type Outcome = 'done' | 'failed' | 'unknown' | 'dead' | 'skipped';

// What the two loops of one drain run share: the commands either has taken up (`seen`), its time
// budget, and the error that stopped one of them (the other stops at its next step).
interface DrainRun {
  ctx: JobContext;
  outbox: OutboxContext;
  counts: JobCounts;
  seen: Set<number>;
  budget: { spent(): boolean };
  stopped: { by?: unknown };
}

// Another drain marked the command `sending` between this one's read and its own mark (a second
// worker, or `register-webhooks` in another process): the command is that drain's to finish.
class TakenByAnotherDrain extends Error {}

// The outbox-drain job's work for one brokerage: reconcile unknown outcomes, then send what is due.
@Injectable()
export class OutboxDrainService {
  private readonly logger = new Logger(OutboxDrainService.name);
  // One key probe per drain run (its context), however many commands a refused key fails.
  private readonly keyProbes = new WeakMap<OutboxContext, Promise<boolean>>();

  constructor(
    private readonly outbox: OutboxRepository,
    private readonly recordErrors: RecordErrorRepository,
    private readonly executors: OutboxExecutors,
    private readonly crms: BrokerageCrms,
    private readonly cashOffers: CashOfferClients,
    private readonly metrics: MetricsService,
    private readonly clock: Clock,
    private readonly history: DecisionHistoryRecorder,
  ) {}

  async drain(ctx: JobContext, options: { runBudgetMs?: number } = {}): Promise<JobResult> {
    const counts = emptyCounts();
    const brokerageId = ctx.brokerage.id;
    if (ctx.dryRun) {
      const depth = await this.outbox.depth(brokerageId);
      counts.read = depth.pending + depth.failed + depth.unknown;
      return { counts };
    }
    const outbox = this.context(ctx.brokerage, ctx.signal);
    // Unknown outcomes first, then again between batches: a long drain (a backlog, a slow remote)
    // would otherwise leave one an event brought forward (lookForSoon) waiting for the next run,
    // and the event with it (a targeted soak on three workers: a lost create found 90 s late). Each
    // once per run, and never one this run sent (recovered as unknown meanwhile by a start or a
    // takeover elsewhere: left to the next run, as this sender stood down).
    const seen = new Set<number>();
    const reconcileDue = async () => {
      for (const command of await this.outbox.unknownDue(brokerageId, RECONCILE_BUDGET)) {
        if (ctx.signal.aborted) return;
        if (seen.has(command.id)) continue;
        seen.add(command.id);
        counts.read += 1;
        this.tally(counts, command, await this.reconcile(command, outbox));
      }
    };
    const budget = drainRunBudget(options.runBudgetMs);
    // The CRM's tasks are sent beside the service's commands, in a loop of their own from the run's
    // start: a batch waits for its slowest command before it looks again for what is due, and a
    // service answer held for seconds, three times over (full soak 20261246: a lost create's look
    // read GET /offers through two 11 s hangs), held a reminder queued meanwhile until its offer had
    // run out; so did the run's first look for lost answers (full soak 20261251, three workers under
    // the service's 429s). Until the service's loop ends, the CRM's looks again every
    // RECLAIM_AFTER_MS when nothing of its own is due.
    const run: DrainRun = { ctx, outbox, counts, seen, budget, stopped: { by: undefined } };
    const services = reconcileDue().then(
      () => this.sendDue(run, { crmOnly: false, afterBatch: reconcileDue }),
      (error: unknown) => {
        run.stopped.by ??= error;
        throw error;
      },
    );
    const servicesEnded = services.then(
      () => undefined,
      () => undefined,
    );
    const loops = await Promise.allSettled([
      services,
      this.sendDue(run, { crmOnly: true, alongside: servicesEnded }),
    ]);
    const failed = loops.find((loop) => loop.status === 'rejected');
    if (failed) throw failed.reason;
    if (ctx.signal.aborted || !loops.some((loop) => loop.status === 'fulfilled' && loop.value))
      return { counts };
    this.logger.log(
      `${brokerageId}: outbox drain ends on its time budget; what is still due goes to the next run`,
    );
    const depth = await this.outbox.depth(brokerageId);
    const left = leftForNextRun('outbox command', {
      pending: depth.pending,
      'failed, to be retried': depth.failed,
      'of unknown outcome, to be looked up': depth.unknown,
    });
    return { counts, left };
  }

  // Sends the due commands of one kind (the CRM's alone, or the rest) batch by batch, until none is
  // due; true when it stopped on the run's time budget. A loop that throws (the ledger gone) stops
  // the other at its next step; both end before the run does.
  private async sendDue(
    { ctx, outbox, counts, seen, budget, stopped }: DrainRun,
    kind: { crmOnly: boolean; afterBatch?: () => Promise<void>; alongside?: Promise<void> },
  ): Promise<boolean> {
    let alongsideEnded = false;
    void kind.alongside?.then(() => (alongsideEnded = true));
    const crmOnly = (c: OutboxCommand) => this.executors.get(c.operation)?.crmOnly === true;
    const crmOperations = this.executors
      .operations()
      .filter((op) => this.executors.get(op)?.crmOnly === true);
    if (kind.crmOnly && crmOperations.length === 0) return false;
    const halted = () => ctx.signal.aborted || stopped.by !== undefined;
    for (;;) {
      if (halted()) return false;
      const claimed = await this.claimDue(ctx.brokerage.id, kind.crmOnly ? crmOperations : undefined);
      const due = sendOrder(
        claimed.filter((c) => !seen.has(c.id) && crmOnly(c) === kind.crmOnly),
        (c) => this.executors.get(c.operation)?.deadline?.(c),
      );
      if (due.length === 0) {
        if (!kind.alongside || alongsideEnded) return false;
        await lookAgainSoon(kind.alongside);
        continue;
      }
      const claimedAt = performance.now();
      const lanes = sendLanes(due, {
        crmOnly,
        keyOf: (c) => orderingKeyOf(c, this.executors.get(c.operation)),
        serviceWidth: SERVICE_LANE_WIDTH,
      });
      try {
        await runLanes(
          lanes,
          async (command) => {
            seen.add(command.id);
            counts.read += 1;
            this.tally(counts, command, await this.execute(command, outbox));
          },
          // The rest of the batch stays due and is claimed again, behind anything with a deadline.
          () => !halted() && performance.now() - claimedAt <= RECLAIM_AFTER_MS,
        );
      } catch (error) {
        stopped.by ??= error;
        throw error;
      }
      if (halted()) return false;
      await kind.afterBatch?.();
      if (budget.spent()) return true;
    }
  }

  // The oldest due commands, and the oldest of those with a deadline however far behind them they
  // were queued: a backlog larger than a batch hides no decision or reminder.
  // With `operations`, only commands of those operations.
  private async claimDue(brokerageId: string, operations?: readonly string[]): Promise<OutboxCommand[]> {
    const withDeadline = (operations ?? this.executors.operations()).filter(
      (operation) => this.executors.get(operation)?.deadline !== undefined,
    );
    const [oldest, urgent] = await Promise.all([
      this.outbox.claimDue(brokerageId, BATCH, operations),
      this.outbox.claimDue(brokerageId, BATCH, withDeadline),
    ]);
    return [...new Map([...oldest, ...urgent].map((c) => [c.id, c])).values()];
  }

  // One command now, outside a drain run (`register-webhooks` reports its outcome as it happens):
  // the same states, executor and retries as the drain. Only a pending or failed command is sent;
  // the ledger's copy of the command is returned afterwards.
  async executeNow(
    brokerage: LoadedBrokerage,
    command: OutboxCommand,
    signal: AbortSignal,
  ): Promise<OutboxCommand> {
    if (command.state !== 'pending' && command.state !== 'failed') return command;
    const outcome = await this.execute(command, this.context(brokerage, signal));
    this.tally(emptyCounts(), command, outcome);
    return (await this.outbox.get(command.id)) ?? command;
  }

  private context(brokerage: LoadedBrokerage, signal: AbortSignal): OutboxContext {
    let crm: Promise<BrokerageCrm> | undefined;
    return {
      brokerage,
      cashOffer: this.cashOffers.get(brokerage.id),
      crm: () => (crm ??= this.crms.get(brokerage.id)),
      signal,
    };
  }

  private tally(counts: JobCounts, command: OutboxCommand, outcome: Outcome): void {
    if (outcome === 'done') {
      if (command.operation.startsWith('create_')) counts.created += 1;
      else counts.updated += 1;
    } else if (outcome === 'skipped') counts.unchanged += 1;
    else counts.failed += 1;
    this.metrics.recordsSynced(command.brokerageId, `outbox:${command.operation}`, outcome);
  }

  private async execute(command: OutboxCommand, ctx: OutboxContext): Promise<Outcome> {
    const executor = this.executors.get(command.operation);
    // The start refuses a ledger with live commands nobody executes (OutboxOperationsCheck), so
    // this is a command queued since by a newer worker sharing the ledger: left for that worker.
    if (!executor) {
      this.logger.warn(`outbox command ${command.id}: no executor for "${command.operation}"; left pending`);
      return 'skipped';
    }
    // `sending` is committed by the client's beforeSend hook, after the rate limiter and the breaker
    // have let the request through: a crash while it waits leaves the command plainly pending. A
    // request that did nothing while the write goes again (a 429 waited out, a refusal the executor
    // answers in another form) takes it back to `pending` until the next one leaves, so a crash
    // between the two leaves nothing unknown.
    let sending: OutboxCommand | undefined;
    const call: CallOptions = {
      beforeSend: async () => {
        sending ??= await this.markSending(command);
      },
      refusedBeforeRetry: async (refusal) => {
        if (!sending) return;
        await this.asOnlySender(this.outbox.refusedBeforeRetry(sending.id, refusal));
        sending = undefined;
      },
    };
    // The write's answer, kept by an executor the moment it came (OutboxRepository.keepAnswer).
    let kept: { result: unknown } | undefined;
    const keepAnswer = async (answer: unknown) => {
      sending ??= await this.markSending(command);
      sending = await this.asOnlySender(this.outbox.keepAnswer(sending, answer));
      kept = { result: answer };
    };
    let result: unknown;
    try {
      result = await executor.send(command, { ...ctx, call, keepAnswer });
    } catch (error) {
      if (error instanceof TakenByAnotherDrain) return this.leftToAnother(command, error);
      // The service took the write: what failed after its answer is no reason to send it again.
      if (sending && kept) return this.answerKept(sending, kept.result, ctx, errorMessage(error));
      if (!sending) return this.onNotSent(command, error, ctx);
      return this.onSendError(sending, error, ctx);
    }
    // An executor whose remote call has no beforeSend hook is marked after it.
    try {
      sending ??= await this.markSending(command);
    } catch (error) {
      if (error instanceof TakenByAnotherDrain) return this.leftToAnother(command, error);
      throw error;
    }
    await this.finish(sending, result, ctx, (record) => this.outbox.complete(command.id, result, record));
    return 'done';
  }

  // The compare-and-set that makes this drain the command's only sender; losing it is no failure.
  private markSending(command: OutboxCommand): Promise<OutboxCommand> {
    return this.asOnlySender(this.outbox.markSending(command.id));
  }

  // A transition of a command this drain is sending: found in another state, the command is no longer
  // this drain's (another drain took it, or a start or a takeover recovered it as unknown), and it
  // stands down.
  private async asOnlySender(transition: Promise<OutboxCommand>): Promise<OutboxCommand> {
    try {
      return await transition;
    } catch (error) {
      if (error instanceof LedgerStateError)
        throw new TakenByAnotherDrain(`taken by another drain (${error.message})`);
      throw error;
    }
  }

  private leftToAnother(command: OutboxCommand, taken: TakenByAnotherDrain): Outcome {
    this.logger.log(`outbox command ${command.id} (${command.operation}): ${taken.message}; left to it`);
    return 'skipped';
  }

  // The request never left: refused by the client's own checks (an invalid record: dead, as the
  // service would refuse it too), or held back locally (breaker open, shutdown): due again later,
  // and the attempt does not count toward the limit.
  private onNotSent(command: OutboxCommand, error: unknown, ctx: OutboxContext): Promise<Outcome> {
    return this.apply(command, error, ctx, false);
  }

  private async onSendError(command: OutboxCommand, error: unknown, ctx: OutboxContext): Promise<Outcome> {
    const executor = this.executors.get(command.operation);
    // The service says it already holds what the command makes (a create a lost send made).
    const held = error instanceof RemoteError && executor?.heldAlready?.(error) === true;
    // A conflict may only mean the service is already where the command wanted it (offer B rejected
    // by the cascade of offer A's accept while B's own reject was in flight): then it is done.
    if (held || mayAlreadyBeInEffect(error, executor?.refusalsReconciled === true)) {
      const settled = await this.alreadyInEffect(command, ctx);
      if (settled && 'result' in settled) {
        const { result } = settled;
        await this.finish(command, result, ctx, (record) => this.outbox.complete(command.id, result, record));
        return 'done';
      }
      // The look that would tell could not be made (the breaker open, the service's 429): the
      // refusal applied nothing, so the command is tried again later and the look made then, not
      // dead-lettered as refused while the service may well be where it wanted (readings sweep 1633
      // run 1: a reject refused 409 "offer 7015 is rejected" as the breaker opened, left dead with an
      // error on a record that showed the offer rejected).
      if (settled && !held && command.attempts < OUTBOX_MAX_ATTEMPTS)
        return this.checkLater(command, error, settled.unchecked);
    }
    // Held but not to be seen yet (a request still in review): looked for as a lost answer is.
    if (held) return this.lostAnswer(command, errorMessage(error));
    return this.apply(command, error, ctx, true);
  }

  // A refusal that may only say the service is already there, whose look failed: failed, due again.
  private async checkLater(command: OutboxCommand, refusal: unknown, unchecked: string): Promise<Outcome> {
    const message = `${errorMessage(refusal)}; whether the service is already where this command wanted it could not be checked (${unchecked}); tried again later`;
    await this.outbox.fail(
      command.id,
      message,
      this.retryAt(command.attempts),
      await this.history.answerEntries(command, 'retry', undefined, message),
    );
    return 'failed';
  }

  // When a command tried `attempts` times is due again (at least the remote's Retry-After).
  private retryAt(attempts: number, retryAfterMs?: number): Date {
    return new Date(this.clock.nowMs() + outboxRetryDelayMs(Math.max(1, attempts), retryAfterMs));
  }

  // The outbox's decision (outbox-decision.ts), carried out.
  private async apply(
    command: OutboxCommand,
    failure: unknown,
    ctx: OutboxContext,
    sent: boolean,
  ): Promise<Outcome> {
    const error = await this.judgedByKeyProbe(failure, ctx);
    const message = errorMessage(error);
    const decision = outboxDecision({
      error,
      sent,
      attempts: command.attempts,
      maxAttempts: OUTBOX_MAX_ATTEMPTS,
    });
    // A deferred command counts no attempt: it waits as after a first one.
    const later = (retryAfterMs?: number, attempt = command.attempts) => this.retryAt(attempt, retryAfterMs);
    switch (decision.action) {
      case 'reconcile':
        return this.lostAnswer(command, message);
      case 'defer':
        await this.outbox.defer(command.id, `not sent: ${message}`, later(decision.retryAfterMs, 1));
        return 'skipped';
      case 'retry': {
        // A wait for the service to show something says the same each try, for days perhaps: the
        // history is told once, not every 15 minutes.
        const same = error instanceof AwaitingEvidenceError && command.lastError === message;
        await this.outbox.fail(
          command.id,
          message,
          later(decision.retryAfterMs),
          same ? [] : await this.history.answerEntries(command, 'retry', undefined, message),
        );
        return 'failed';
      }
      case 'wait-for-credentials':
        // The credential watch pauses the brokerage until they work; the command waits, its record told.
        if (sent)
          await this.outbox.fail(
            command.id,
            message,
            later(),
            await this.history.answerEntries(command, 'retry', undefined, message),
          );
        else await this.outbox.defer(command.id, `not sent: ${message}`, later(undefined, 1));
        await this.tellRecord(command, error, message, ctx);
        return sent ? 'failed' : 'skipped';
      case 'dead': {
        const reason = decision.gaveUp ? `gave up after ${command.attempts} attempts: ${message}` : message;
        await this.outbox.deadLetter(
          command.id,
          reason,
          await this.history.answerEntries(command, 'dead', undefined, reason),
          refusedBeforeSending(error)
            ? 'not-sent'
            : !decision.gaveUp && refusedByService(error)
              ? 'refused'
              : undefined,
        );
        await this.tellRecord(command, error, reason, ctx, decision.code);
        return 'dead';
      }
    }
  }

  // The command may have taken effect and its answer says nothing of it: looked for from now on.
  private async lostAnswer(command: OutboxCommand, message: string): Promise<Outcome> {
    await this.outbox.recordUnknown(
      command.id,
      message,
      new Date(this.clock.nowMs() + reconcileDelayMs(0)),
      await this.history.answerEntries(command, 'unknown', undefined, message),
    );
    this.logger.warn(`outbox command ${command.id} (${command.operation}): outcome unknown, reconciling`);
    return 'unknown';
  }

  // A 403 from the service that does not say whether the key or the record is refused (the spec
  // shows no code for an unknown key; an API gateway answers it "Forbidden"): the key is tried once
  // per drain on a read every account may make. Refused there too, the refusal is the key's
  // (keyRefused): the command waits for the key as after a 401, where it would otherwise be
  // dead-lettered like every command after it, and its record says so.
  private async judgedByKeyProbe(error: unknown, ctx: OutboxContext): Promise<unknown> {
    const unexplained403 =
      error instanceof CashOfferError &&
      error.code === 'AUTH_FAILED' &&
      error.status === 403 &&
      !error.keyRefused;
    if (!unexplained403) return error;
    let probe = this.keyProbes.get(ctx);
    if (!probe) {
      probe = ctx.cashOffer.refusesKey();
      this.keyProbes.set(ctx, probe);
    }
    return (await probe)
      ? error.asKeyRefused('the service refuses this key on GET /active-offer-requests too')
      : error;
  }

  // The refusal where the operator and the agent look: the record's error, and the record itself.
  private async tellRecord(
    command: OutboxCommand,
    error: unknown,
    reason: string,
    ctx: OutboxContext,
    code = error instanceof RemoteError ? error.code : 'UNAVAILABLE',
  ): Promise<void> {
    const { kind, id } = splitRecordRef(command.recordRef);
    await this.recordErrors.record({
      brokerageId: command.brokerageId,
      recordKind: kind,
      recordRef: id,
      message: reason,
      code,
    });
    if (error instanceof RemoteError) {
      const executor = this.executors.get(command.operation);
      await executor?.onRefused?.(command, error, ctx).catch((refusal: unknown) => {
        this.logger.error(
          `outbox command ${command.id}: showing the refusal failed: ${errorMessage(refusal)}`,
        );
      });
    }
  }

  // Whether the service is already where a refused command wanted it: `result` when it is,
  // `unchecked` (why) when the look could not be made, undefined when it is not.
  private async alreadyInEffect(
    command: OutboxCommand,
    ctx: OutboxContext,
  ): Promise<{ result: unknown } | { unchecked: string } | undefined> {
    const executor = this.executors.get(command.operation);
    try {
      const answer = await executor?.reconcile(command, ctx, 'refusal');
      return answer?.found ? { result: answer.result } : undefined;
    } catch (error) {
      this.logger.warn(`outbox command ${command.id}: could not check the conflict: ${errorMessage(error)}`);
      return { unchecked: errorMessage(error) };
    }
  }

  private async reconcile(command: OutboxCommand, ctx: OutboxContext): Promise<Outcome> {
    const executor = this.executors.get(command.operation);
    if (!executor) return 'skipped';
    // Answered before the daemon stopped: the answer was kept, and there is nothing to look for.
    const kept = keptAnswerOf(command);
    if (kept) return this.answerKept(command, kept.result, ctx);
    if (command.receivedConfirmedAt) return this.confirmedReceived(command, ctx);
    const nextCheck = new Date(this.clock.nowMs() + reconcileDelayMs(this.sinceSentMs(command)));
    let answer;
    try {
      answer = await executor.reconcile(command, ctx, 'lost-answer');
    } catch (error) {
      const note = `reconcile failed, tried again from ${nextCheck.toISOString()}: ${errorMessage(error)}`;
      this.logger.warn(`outbox command ${command.id}: ${note}`);
      await this.outbox.postponeReconcile(command.id, note, nextCheck);
      return 'unknown';
    }
    if (answer.found) {
      await this.finish(command, answer.result, ctx, (record) =>
        this.outbox.resolveUnknown(command.id, { outcome: 'done', result: answer.result }, record),
      );
      return 'done';
    }
    if (answer.provablyAbsent) {
      await this.outbox.resolveUnknown(command.id, { outcome: 'pending' });
      // Sent again in this same drain.
      return this.execute({ ...command, state: 'pending' }, ctx);
    }
    const { kind, id } = splitRecordRef(command.recordRef);
    const sent = command.sentAt ? ` at ${command.sentAt.toISOString()}` : '';
    const known =
      `${command.operation} was sent${sent} and its answer was lost (${command.lastError ?? 'no reason recorded'}); ` +
      `the service does not show it yet, so it is not sent again; looked for again from ${nextCheck.toISOString()}. ${answer.hint}`;
    await this.outbox.postponeReconcile(command.id, command.lastError ?? known, nextCheck, answer.note);
    await this.recordErrors.record({
      brokerageId: command.brokerageId,
      recordKind: kind,
      recordRef: id,
      message: known,
      code: 'OUTCOME_UNKNOWN',
    });
    return 'unknown';
  }

  // The operator checked the service and says it holds the write (`cli confirm-received`): finished
  // as answered with no body, without a look of the drain's own, whose "not shown" is what left it
  // unknown and whose "provably absent" would send it again against the operator's word.
  private async confirmedReceived(command: OutboxCommand, ctx: OutboxContext): Promise<Outcome> {
    const executor = this.executors.get(command.operation);
    if (!executor?.receivedWithoutAnswer) {
      // Confirmed by a newer worker that knows this operation so: left to it, looked at again later.
      const nextCheck = new Date(this.clock.nowMs() + reconcileDelayMs(this.sinceSentMs(command)));
      await this.outbox.postponeReconcile(
        command.id,
        `confirmed received by the operator, but ${command.operation} cannot be finished without its answer here`,
        nextCheck,
      );
      return 'unknown';
    }
    const result: unknown = await executor.receivedWithoutAnswer(command, ctx);
    await this.finish(
      command,
      result,
      ctx,
      (record) => this.outbox.resolveUnknown(command.id, { outcome: 'done', result }, record),
      CONFIRMED_RECEIVED,
    );
    this.logger.log(
      `outbox command ${command.id} (${command.operation}): done, the operator confirmed the service received it`,
    );
    return 'done';
  }

  // A command whose write the service answered, finished with the answer it kept: after a crash (the
  // command found `unknown`), or after a failure of what the executor did next.
  private async answerKept(
    command: OutboxCommand,
    result: unknown,
    ctx: OutboxContext,
    failedAfter?: string,
  ): Promise<Outcome> {
    const how = failedAfter
      ? `${ANSWER_KEPT}; what followed failed (${failedAfter})`
      : `${ANSWER_KEPT} before the daemon stopped`;
    await this.finish(
      command,
      result,
      ctx,
      (record) =>
        command.state === 'unknown'
          ? this.outbox.resolveUnknown(command.id, { outcome: 'done', result }, record)
          : this.outbox.complete(command.id, result, record),
      how,
    );
    this.logger.log(`outbox command ${command.id} (${command.operation}): done, ${how}`);
    return 'done';
  }

  private sinceSentMs(command: OutboxCommand): number {
    return this.clock.nowMs() - (command.sentAt ?? command.updatedAt).getTime();
  }

  // The record went through: its open errors are resolved, unless a command on it queued later was
  // refused (a counter's write-back retried after the agent's accept was refused: a full crash soak,
  // seed 20261213, resolved the accept's refusal and the operator's list lost it).
  private async resolveRecordErrors(command: OutboxCommand): Promise<void> {
    const origin = CrmWriteBackExecutor.originOf(command) ?? command.id;
    if (await this.outbox.refusedAfter(command.brokerageId, command.recordRef, origin)) return;
    const { kind, id } = splitRecordRef(command.recordRef);
    await this.recordErrors.resolve(command.brokerageId, kind, id);
  }

  // The remote write is done: record what the ledger must know of it (recordDone) and its CRM
  // write-back as a command of its own (when its executor has them), then mark the write done, then
  // try the write-back. A crash anywhere in between leaves
  // the write-back pending for the next drain, and the remote write is never repeated. `how`: how it
  // came to be known done, where not from the service's answer (the history says it).
  private async finish(
    command: OutboxCommand,
    result: unknown,
    ctx: OutboxContext,
    markDone: (record: NewHistoryEntry[]) => Promise<OutboxCommand>,
    how?: string,
  ): Promise<void> {
    const executor = this.executors.get(command.operation);
    await executor?.recordDone?.(command, result, ctx);
    const record = await this.history.answerEntries(command, 'done', result, how);
    if (!executor?.writeBack) {
      await markDone(record);
      await this.resolveRecordErrors(command);
      return;
    }
    const { command: writeBack } = await this.outbox.enqueue(
      CrmWriteBackExecutor.commandFor(command, result),
    );
    await markDone(record);
    const { kind, id } = splitRecordRef(command.recordRef);
    this.logger.log(
      `${command.brokerageId}: ${command.operation} for ${kind} ${id} done (outbox command ${command.id})`,
    );
    await this.resolveRecordErrors(command);
    const outcome = await this.execute(writeBack, ctx);
    if (outcome !== 'done')
      this.logger.warn(`outbox command ${command.id}: CRM write-back did not go through; retried later`);
  }
}

// The daemon's own refusal, made before any request of this command left (a counter past its own
// expiry, a body that breaks the spec's tables): the service never saw it.
// The service answered, and its answer was a refusal: nothing was applied (a 409 on an offer no
// longer open, a 400 naming a field). Not a time-out, a throttle or a failure on its side.
function refusedByService(error: unknown): boolean {
  return (
    error instanceof CashOfferError &&
    error.status !== undefined &&
    error.status >= 400 &&
    error.status < 500 &&
    ![401, 407, 408, 429].includes(error.status)
  );
}

function refusedBeforeSending(error: unknown): boolean {
  return (
    error instanceof CashOfferError &&
    error.code === 'INVALID_RECORD' &&
    error.status === undefined &&
    error.violations !== undefined
  );
}
