import { Injectable, Logger } from '@nestjs/common';
import type { BrokerageCrm } from '../../brokerages/brokerage-crm';
import type { Offer } from '../../cash-offer/schema';
import { Clock } from '../../common/clock';
import type { LoadedBrokerage } from '../../config/config.loader';
import { CASH_OFFERS_PIPELINE, type CrmRecord } from '../../crm';
import { LinkRepository, RecordErrorRepository } from '../../ledger';
import { MetricsService } from '../../observability/metrics/metrics.service';
import { errorMessage } from '../common/job-counts';
import { LINK } from '../common/listing-deal.properties';
import { agentRequestIn } from '../offers/agent-held-stage';
import { HeldStages } from '../offers/held-stages.service';
import { OFFER, offerStageId } from '../offers/offer-record.properties';
import { isCounteredWord, isWithdrawnOffer } from '../offers/offer-record.view';
import {
  escalationTaskKey,
  leadTaskKey,
  planClock,
  type ClockedOffer,
  type KnownTask,
} from './offer-clock.plan';
import { clockSettings, type ClockSettings } from './offer-clock.settings';
import { OFFER_TASK_LINK, offerIdOfTaskKey } from './offer-clocks.constants';
import type { CreateOfferTaskPayload } from './offer-task.executors';
import { OfferNumbers } from './offer-numbers';
import { OfferTaskQueue } from './offer-task.queue';
import { offerTaskText } from './offer-task.text';

const CRM_BATCH = 100;
const DAY_MS = 24 * 3600 * 1000;
// How long after its expiry an offer is still looked at: long enough for any reconcile schedule.
const LOOK_BACK_MS = 7 * DAY_MS;
const ANSWERED = new Set(['accepted', 'rejected', 'declined']);

// Nobody owes an answer to an offer decided, countered (in any service's word), or taken back by
// its buyer.
function isClosed(status: string): boolean {
  return ANSWERED.has(status.toLowerCase()) || isCounteredWord(status) || isWithdrawnOffer(status);
}

// An offer's answer is still owed while its record is in Incoming, or in a "… requested" stage whose
// request could not go out (Decision error set there: a counter with a field to fix, such as an
// expiry already past): the offer can still run out unanswered, so its tasks are made and it is
// shown Expired when it does, as though the agent had not moved it.
function stillOwed(stageKey: string, record: CrmRecord): boolean {
  if (stageKey === 'incoming') return true;
  return (
    agentRequestIn(stageKey) !== undefined && (record.properties[OFFER.decisionError] ?? '').trim() !== ''
  );
}

export interface ClockPass {
  // Offers the pass listed that a clock may concern (see `concerns`).
  offers: Offer[];
  // Every offer id the (complete) pass listed.
  listed: ReadonlySet<string>;
}

export interface ClockOutcome {
  tasksQueued: number;
  tasksClosed: number;
  shownExpired: number;
}

// Offer clocks, run after a complete offers-reconcile pass (the service's list is the truth): tasks
// for the listing agent at each lead time, one for the broker near the end, every task closed once
// the offer is answered or gone, and an undecided offer past its expiry moved to Expired unless the
// agent has moved it. Task writes go through the outbox, so a task is made once whatever is killed.
// An undecided record past its expiry, as the pass read it.
interface ToExpire {
  offer: Offer;
  recordId: string;
  stageIdRead?: string;
}

@Injectable()
export class OfferClocks {
  private readonly logger = new Logger(OfferClocks.name);

  constructor(
    private readonly links: LinkRepository,
    private readonly tasks: OfferTaskQueue,
    private readonly recordErrors: RecordErrorRepository,
    private readonly metrics: MetricsService,
    private readonly numbers: OfferNumbers,
    private readonly clock: Clock,
    private readonly heldStages: HeldStages,
  ) {}

  // Whether a listed offer is worth keeping for the clocks: its expiry is near or recently past (an
  // offer the service calls expired only within the same look-back, so old ones are not read again
  // on every pass). Switched off, only offers past their expiry (the Expired stage is still shown).
  concerns(brokerage: LoadedBrokerage, offer: Offer): boolean {
    const settings = clockSettings(brokerage.config.offerClocks);
    const expires = Date.parse(offer.offer_expires);
    const serviceExpired = offer.offer_status.toLowerCase() === 'expired';
    if (!Number.isFinite(expires)) return serviceExpired;
    const now = this.clock.nowMs();
    if (expires < now - LOOK_BACK_MS) return false;
    const horizon = settings.enabled ? Math.max(settings.leadsMs[0] ?? 0, settings.escalateMs ?? 0) : 0;
    return serviceExpired || expires <= now + horizon;
  }

  async afterPass(crm: BrokerageCrm, brokerage: LoadedBrokerage, pass: ClockPass): Promise<ClockOutcome> {
    const outcome: ClockOutcome = { tasksQueued: 0, tasksClosed: 0, shownExpired: 0 };
    const settings = clockSettings(brokerage.config.offerClocks);
    const id = crm.brokerageId;
    const openTasks = await this.links.listActive(id, OFFER_TASK_LINK);
    const withOpenTasks = new Set(openTasks.map((t) => offerIdOfTaskKey(t.remoteId)));
    // A decided offer with no open task has nothing left to do: its record is not read.
    const offers = new Map(
      pass.offers
        .filter((o) => !isClosed(o.offer_status) || withOpenTasks.has(o.offer_id))
        .map((o) => [o.offer_id, o]),
    );
    // Open tasks of offers the pass no longer lists (answered long ago, or dropped by the service).
    const gone = new Set<number>();
    for (const offerId of withOpenTasks)
      if (offerId !== undefined && !pass.listed.has(String(offerId))) gone.add(offerId);
    const records = await this.offerRecords(crm, [...offers.keys(), ...gone]);
    const toExpire: ToExpire[] = [];
    const now = this.clock.nowMs();
    for (const offerId of [...offers.keys(), ...gone]) {
      const offer = offers.get(offerId);
      const record = records.get(offerId);
      if (offer && !record) continue; // not written to the CRM yet (or not ours): the next pass
      const clocked: ClockedOffer = offer
        ? this.clockOf(crm, offer, record!.crm, now)
        : { offerId, expiresMs: null, state: 'expired' };
      const known = await this.knownTasks(id, offerId, settings, openTasks);
      for (const action of planClock(clocked, known, now, settings)) {
        if (action.kind === 'create_task' && offer && record) {
          await this.queueCreate(id, offer, record.crm.id, action, settings);
          outcome.tasksQueued += 1;
        } else if (action.kind === 'complete_task') {
          const link = openTasks.find((t) => t.remoteId === action.key);
          if (!link) continue;
          if (await this.tasks.complete(id, offerId, action.key, link.crmId)) outcome.tasksClosed += 1;
        } else if (action.kind === 'show_expired' && offer && record) {
          toExpire.push({ offer, recordId: record.crm.id, stageIdRead: record.crm.stageId });
        }
      }
    }
    outcome.shownExpired = await this.showExpired(crm, toExpire);
    return outcome;
  }

  // The offer records of these offers, read from the CRM (their stage is the agent's answer).
  private async offerRecords(
    crm: BrokerageCrm,
    offerIds: number[],
  ): Promise<Map<number, { crm: CrmRecord }>> {
    const found = new Map<number, { crm: CrmRecord }>();
    const links = await this.links.findMany(
      crm.brokerageId,
      LINK.offer,
      offerIds.map((o) => String(o)),
    );
    const byCrmId = new Map([...links.values()].map((l) => [l.crmId, Number(l.remoteId)]));
    const crmIds = [...byCrmId.keys()];
    for (let start = 0; start < crmIds.length; start += CRM_BATCH)
      for (const record of await crm.port.getRecords('deal', crmIds.slice(start, start + CRM_BATCH), [
        OFFER.decisionError,
      ]))
        found.set(byCrmId.get(record.id)!, { crm: record });
    return found;
  }

  // The record's stage is the agent's answer; the service's status, the buyer's or the cascade's. An
  // offer the service calls expired whose record is still in Incoming counts as past its expiry.
  private clockOf(crm: BrokerageCrm, offer: Offer, record: CrmRecord, nowMs: number): ClockedOffer {
    const status = offer.offer_status.toLowerCase();
    const expires = Date.parse(offer.offer_expires);
    const clocked = { offerId: offer.offer_id, expiresMs: Number.isFinite(expires) ? expires : null };
    const stage = crm.stages.resolve(record.pipelineId, record.stageId);
    const inCashOffers = stage?.pipelineKey === CASH_OFFERS_PIPELINE;
    if (inCashOffers && stage.stageKey === 'expired') return { ...clocked, state: 'expired' };
    if (!inCashOffers || !stillOwed(stage.stageKey, record) || isClosed(status))
      return { ...clocked, state: status === 'expired' ? 'expired' : 'answered' };
    if (status === 'expired')
      return { ...clocked, expiresMs: Math.min(clocked.expiresMs ?? nowMs, nowMs), state: 'undecided' };
    return { ...clocked, state: 'undecided' };
  }

  // The tasks this offer's clock has made or queued (OfferTaskQueue.known).
  private knownTasks(
    brokerageId: string,
    offerId: number,
    settings: ClockSettings,
    openTasks: readonly { remoteId: string }[],
  ): Promise<KnownTask[]> {
    return this.tasks.known(
      brokerageId,
      offerId,
      [...settings.leadsMs.map((lead) => leadTaskKey(offerId, lead)), escalationTaskKey(offerId)],
      openTasks.filter((t) => offerIdOfTaskKey(t.remoteId) === offerId),
    );
  }

  // The agent's task goes to the agent who owns the listing (the CRM's owner of the listing deal);
  // the broker's to the broker the brokerage file names.
  private async queueCreate(
    brokerageId: string,
    offer: Offer,
    recordId: string,
    action: { key: string; for: 'agent' | 'broker'; lead: string; dueMs: number },
    settings: ClockSettings,
  ): Promise<void> {
    const text = offerTaskText(offer, action.for, action.lead);
    const listing =
      action.for === 'agent' ? await this.tasks.listingDeal(brokerageId, offer.offer_request_id) : undefined;
    const payload: CreateOfferTaskPayload = {
      key: action.key,
      offerId: offer.offer_id,
      expiresAt: offer.offer_expires,
      about: { kind: 'deal', id: recordId },
      ...text,
      dueAt: new Date(action.dueMs).toISOString(),
      ...(action.for === 'broker' && settings.brokerOwnerId ? { ownerId: settings.brokerOwnerId } : {}),
      ...(listing ? { ownerOf: listing } : {}),
    };
    await this.tasks.create(brokerageId, payload);
  }

  // Moves undecided records past their expiry to Expired. The stage was read at the start of this
  // pass; an agent's move in the seconds since, written over, is put back where the CRM keeps a
  // stage history (HeldStages.putBackOverwritten), for the decision consumer to answer.
  private async showExpired(crm: BrokerageCrm, items: ToExpire[]): Promise<number> {
    if (items.length === 0) return 0;
    if (!crm.stages.hasStage(CASH_OFFERS_PIPELINE, 'expired')) {
      this.logger.warn(
        `${crm.brokerageId}: ${items.length} offer(s) are past their expiry undecided, but the CRM has no ` +
          `"Expired" stage yet: run setup-crm to add it`,
      );
      return 0;
    }
    let shown = 0;
    const expiredStageId = offerStageId(crm.stages, 'expired');
    const results = await crm.port.updateRecords(
      'deal',
      items.map((i) => ({
        id: i.recordId,
        properties: {},
        pipelineId: crm.stages.pipelineId(CASH_OFFERS_PIPELINE),
        stageId: expiredStageId,
      })),
    );
    const putBack = await this.heldStages.putBackOverwritten(
      crm,
      items.flatMap(({ offer, recordId, stageIdRead }, n) =>
        results[n]?.ok
          ? [{ offerKey: String(offer.offer_id), recordId, stageId: expiredStageId, stageIdRead }]
          : [],
      ),
    );
    for (const [n, result] of results.entries()) {
      const { offer } = items[n];
      if (putBack.has(String(offer.offer_id))) continue;
      if (!result.ok) {
        await this.recordErrors.record({
          brokerageId: crm.brokerageId,
          recordKind: 'offer',
          recordRef: String(offer.offer_id),
          message: `offer ${offer.offer_id} expired undecided, but its record could not be moved to Expired: ${errorMessage(result.error)}`,
          code: result.error.code,
        });
        continue;
      }
      shown += 1;
      if (await this.numbers.expiredUndecided(crm.brokerageId, offer.offer_id))
        this.metrics.offerExpiredUndecided(crm.brokerageId);
      this.logger.log(
        `${crm.brokerageId}: offer ${offer.offer_id} expired undecided; its record now shows Expired`,
      );
    }
    return shown;
  }
}
