import { Injectable, Logger } from '@nestjs/common';
import type { BrokerageCrm } from '../../brokerages/brokerage-crm';
import { Clock } from '../../common/clock';
import { CASH_OFFERS_PIPELINE, type CrmRecord } from '../../crm';
import { LedgerTurns, LinkRepository, RecordErrorRepository, type Link } from '../../ledger';
import { ranOutBy } from '../common/expiry';
import { errorMessage } from '../common/job-counts';
import { LINK } from '../common/listing-deal.properties';
import { DecisionHistoryRecorder, type UnlistedShown } from '../history/decision-history.recorder';
import { HeldStages } from './held-stages.service';
import { OFFER, offerStageId } from './offer-record.properties';
import { closedWithoutSale, isAnsweredCounter, isCounteredWord, stageFor } from './offer-record.view';
import type { AgentRequest } from './agent-held-stage';
import {
  countersOutliveExpiry,
  decodeCounterLink,
  encodeCounterLink,
  type CounterLinkContent,
} from './counter-link';

const CRM_BATCH = 100;

export type UnlistedOutcome = 'expired' | 'counter-ended' | 'wait' | 'settled';

// What the ledger knows of our counter on the offer (its counter link).
export interface UnlistedCounter {
  status: string;
  expiresMs?: number | null;
}

// What an offer record shows once GET /offers no longer lists its offer. The spec shows no status
// beyond active, accepted and rejected: a service may drop an offer past `offer_expires` from the
// list instead of listing it `expired`. An offer the record still shows `active` whose own
// expiry has passed is then shown as expired (never left Incoming for ever); one not yet past it is
// looked at again by the next reconcile; a decided one keeps what it shows (nothing to change).
// An offer our counter waited on ended with the counter, as a listing `expired` would show it
// (offerRecordView): past its own expiry, or past the counter's, where the service lets counters
// lapse (a lapse that ends its offer, dropped from the list like any expired one: targeted soak
// 1548001 left such a record Countered, counter pending, for good); and a counter already known
// to have lapsed shows so. A buyer's answer known (accepted, refused) says what the record shows.
export function unlistedOfferOutcome(
  shown: { status?: string | null; expires?: string | null; counterStatus?: string | null },
  nowMs: number,
  counter?: UnlistedCounter,
  countersOutliveExpiry = false,
): UnlistedOutcome {
  const expiresMs = crmTimeMs(shown.expires);
  const ownExpiryPassed = expiresMs !== undefined && expiresMs <= nowMs;
  if (counter) {
    const waiting = !isAnsweredCounter(counter.status);
    const ended = waiting
      ? ownExpiryPassed || (!countersOutliveExpiry && ranOutBy(counter.expiresMs, nowMs))
      : counter.status.toLowerCase() === 'expired' ||
        ((ownExpiryPassed || ranOutBy(counter.expiresMs, nowMs)) && refusalToShow(shown, counter));
    if (ended)
      return shown.status === 'expired' && shown.counterStatus === counterWordOf(counter)
        ? 'settled'
        : 'counter-ended';
    if (waiting) return 'wait';
  }
  if ((shown.status ?? '') !== 'active') return 'settled';
  return ownExpiryPassed ? 'expired' : 'wait';
}

// The counter status an unlisted offer's record shows once it ended: the buyer's refusal where one
// is known, else the lapse the listings and the clock tell of.
export function counterWordOf(counter: UnlistedCounter): string {
  return isAnsweredCounter(counter.status) && counter.status.toLowerCase() !== 'accepted'
    ? counter.status
    : 'expired';
}

// A buyer's refusal the record does not show yet, on an offer the record shows open or run out: an
// UPDATE applied after the offer dropped off the list (an offer the seller decided keeps its word).
function refusalToShow(
  shown: { status?: string | null; counterStatus?: string | null },
  counter: UnlistedCounter,
): boolean {
  const status = (shown.status ?? '').toLowerCase();
  const open = status === 'active' || status === 'expired' || isCounteredWord(status);
  return counter.status.toLowerCase() !== 'accepted' && open && shown.counterStatus !== counter.status;
}

const DAY_MS = 24 * 3600 * 1000;

// A date-time as a CRM gives it back: ISO text, epoch milliseconds, or a date alone (a CRM whose
// field keeps only the day: the offer is past it only once that day is over).
export function crmTimeMs(value: string | null | undefined): number | undefined {
  const text = value?.trim() ?? '';
  if (/^\d{10,}$/.test(text)) return Number(text);
  const ms = Date.parse(text);
  if (!Number.isFinite(ms)) return undefined;
  return /^\d{4}-\d{2}-\d{2}$/.test(text) ? ms + DAY_MS : ms;
}

// After a complete offers-reconcile pass: the offer records whose offers the pass did not list.
@Injectable()
export class UnlistedOffers {
  private readonly logger = new Logger(UnlistedOffers.name);

  constructor(
    private readonly turns: LedgerTurns,
    private readonly links: LinkRepository,
    private readonly recordErrors: RecordErrorRepository,
    private readonly clock: Clock,
    private readonly heldStages: HeldStages,
    private readonly history: DecisionHistoryRecorder,
  ) {}

  // `listed`: every offer id the pass read (valid only after a complete, error-free pass).
  show(crm: BrokerageCrm, listed: ReadonlySet<string>, runId: number): Promise<number> {
    return this.turns.run(`offers:${crm.brokerageId}`, () => this.showUnlisted(crm, listed, runId));
  }

  // One offer the service no longer lists, looked at again now that the ledger knows more of its
  // counter (a buyer's refusal applied after the offer dropped off): no later pass would, as an
  // offer shown ended is not looked at again.
  showAgain(crm: BrokerageCrm, offerId: string): Promise<number> {
    return this.turns.run(`offers:${crm.brokerageId}`, async () => {
      const link = await this.links.find(crm.brokerageId, LINK.offer, offerId);
      return link ? this.showBatch(crm, [link]) : 0;
    });
  }

  // The offer's status as its record shows it, where the service no longer lists the offer and a
  // pass showed it closed without a sale (expired, or refused before it dropped off): what the
  // seller's decision of it whose answer was lost is judged by (DecideOfferExecutor). Undefined
  // otherwise.
  async shownClosed(crm: BrokerageCrm, offerId: string): Promise<string | undefined> {
    const status = (await this.unlistedShown(crm, offerId))?.status;
    return status !== undefined && closedWithoutSale(status) ? status : undefined;
  }

  // The link of an offer a pass marked gone (no longer listed) and the status its record shows.
  private async unlistedShown(
    crm: BrokerageCrm,
    offerId: string,
  ): Promise<{ link: Link; status: string } | undefined> {
    const link = await this.links.find(crm.brokerageId, LINK.offer, offerId);
    if (!link || link.state !== 'gone') return undefined;
    const [record] = await crm.port.getRecords('deal', [link.crmId], [OFFER.status]);
    return { link, status: record?.properties[OFFER.status] ?? '' };
  }

  // An offer the service no longer lists, its record shown expired while it held the agent's
  // decision (`answered`), once that decision has nothing left to do (a reject the offer's end
  // overtook, an accept the service refused for it): the record goes where the offer is, Expired,
  // or Counter rejected where our counter ended with it, as a listing `expired` would have put it. A pass shows an unlisted offer once
  // and never looks at it again, so before, the record stayed in Reject requested for good (full
  // soak 20261265). Nothing moves while the agent's newer request waits in the record's stage.
  showOvertaken(crm: BrokerageCrm, offerId: string, answered: AgentRequest): Promise<void> {
    return this.turns.run(`offers:${crm.brokerageId}`, async () => {
      const shown = await this.unlistedShown(crm, offerId);
      if (shown?.status.toLowerCase() !== 'expired') return;
      const { link } = shown;
      const counterLink = await this.links.find(crm.brokerageId, LINK.counter, offerId);
      const counterStatus = counterLink ? counterWordOf(decodeCounterLink(counterLink)) : null;
      const to = stageFor('expired', counterStatus ?? undefined);
      const { held, placed } = await this.heldStages.besides(crm, offerId, link.crmId, answered);
      const pipelineId = crm.stages.pipelineId(CASH_OFFERS_PIPELINE);
      const stageId = offerStageId(crm.stages, to);
      if (held || !placed || (placed.pipelineId === pipelineId && placed.stageId === stageId)) return;
      const [written] = await crm.port.updateRecords('deal', [
        { id: link.crmId, properties: {}, pipelineId, stageId, moveSentOnce: true },
      ]);
      if (written && !written.ok) throw written.error;
      await this.heldStages.putBackOverwritten(crm, [
        { offerKey: offerId, recordId: link.crmId, stageId, stageIdRead: placed.stageId, answered },
      ]);
      await this.history.recordUnlistedShown(crm.brokerageId, [
        { offerId, crmId: link.crmId, stage: to, counterStatus },
      ]);
    });
  }

  private async showUnlisted(crm: BrokerageCrm, listed: ReadonlySet<string>, runId: number): Promise<number> {
    const unlisted = (await this.links.listNotSeenIn(crm.brokerageId, LINK.offer, runId)).filter(
      (link) => !listed.has(link.remoteId),
    );
    let shownEnded = 0;
    for (let start = 0; start < unlisted.length; start += CRM_BATCH) {
      shownEnded += await this.showBatch(crm, unlisted.slice(start, start + CRM_BATCH));
    }
    return shownEnded;
  }

  private async showBatch(crm: BrokerageCrm, batch: Link[]): Promise<number> {
    const brokerageId = crm.brokerageId;
    const records = new Map(
      (
        await crm.port.getRecords(
          'deal',
          batch.map((l) => l.crmId),
          [OFFER.status, OFFER.expires, OFFER.counterStatus],
        )
      ).map((r) => [r.id, r]),
    );
    const counterLinks = await this.links.findMany(
      brokerageId,
      LINK.counter,
      batch.map((l) => l.remoteId),
    );
    const counters = new Map(
      [...counterLinks].map(([key, row]) => [key, { row, counter: decodeCounterLink(row) }]),
    );
    // Asked only when a counter waits on one of these offers: the one case it decides.
    const waiting = [...counters.values()].some((c) => !isAnsweredCounter(c.counter.status));
    const outlive = waiting && (await countersOutliveExpiry(this.links, brokerageId));
    const now = this.clock.nowMs();
    const settled: string[] = [];
    const ends: Ending[] = [];
    for (const link of batch) {
      const record = records.get(link.crmId);
      // A record deleted in the CRM: nothing to show it on.
      const outcome = record
        ? unlistedOfferOutcome(
            {
              status: record.properties[OFFER.status],
              expires: record.properties[OFFER.expires],
              counterStatus: record.properties[OFFER.counterStatus],
            },
            now,
            counters.get(link.remoteId)?.counter,
            outlive,
          )
        : 'settled';
      if (outcome === 'settled') settled.push(link.remoteId);
      if (outcome === 'expired' || outcome === 'counter-ended') ends.push({ link, record: record!, outcome });
    }
    const shown = await this.showEnded(crm, ends, counters);
    settled.push(...shown.map((s) => s.offerId));
    // Not looked at again; an offer the service lists again is written as listed (a link marked
    // gone that shows up again counts as changed). The history tells what the shown ones now show.
    await this.links.markGone(
      brokerageId,
      LINK.offer,
      settled,
      this.history.unlistedShownEntries(brokerageId, shown),
    );
    return shown.length;
  }

  // The records of offers that ended unlisted, shown so. Expired moves a record out of Incoming
  // only; an offer that ended with our counter, as a listing would show it (Counter rejected), out of
  // any stage but one holding the agent's newer request. Returns the records shown.
  private async showEnded(
    crm: BrokerageCrm,
    ends: Ending[],
    counters: ReadonlyMap<string, KnownCounter>,
  ): Promise<UnlistedShown[]> {
    if (ends.length === 0) return [];
    const pipelineId = crm.stages.pipelineId(CASH_OFFERS_PIPELINE);
    const withCounter = ends.filter((e) => e.outcome === 'counter-ended').map((e) => e.link.remoteId);
    const { held } = await this.heldStages.among(crm, withCounter);
    const updates = ends.map(({ link, record, outcome }) => {
      const stage = crm.stages.resolve(record.pipelineId, record.stageId);
      const inPipeline = stage?.pipelineKey === CASH_OFFERS_PIPELINE;
      const counterEnded = outcome === 'counter-ended';
      const known = counters.get(link.remoteId)?.counter;
      const counterWord = known ? counterWordOf(known) : 'expired';
      const to = counterEnded ? stageFor('expired', counterWord) : stageFor('expired', undefined);
      const moves = counterEnded
        ? !held.has(link.remoteId) && !(inPipeline && stage.stageKey === to)
        : inPipeline && stage.stageKey === 'incoming';
      return {
        link,
        outcome,
        counterStatus: counterEnded ? counterWord : null,
        stage: moves ? to : null,
        stageIdRead: record.stageId,
        input: {
          id: link.crmId,
          properties: {
            [OFFER.status]: 'expired',
            ...(counterEnded ? { [OFFER.counterStatus]: counterWord } : {}),
          },
          ...(moves ? { pipelineId, stageId: offerStageId(crm.stages, to) } : {}),
          // Out of a stage the agent may be moving it from: never sent again after a lost answer
          // (the next pass looks at the record again).
          ...(moves && counterEnded ? { moveSentOnce: true } : {}),
        },
      };
    });
    const results = await crm.port.updateRecords(
      'deal',
      updates.map((u) => u.input),
    );
    // An agent's move made since the read above, written over, is put back (HeldStages).
    await this.heldStages.putBackOverwritten(
      crm,
      updates.flatMap(({ link, input, stageIdRead }, n) =>
        results[n]?.ok && input.stageId !== undefined
          ? [{ offerKey: link.remoteId, recordId: link.crmId, stageId: input.stageId, stageIdRead }]
          : [],
      ),
    );
    const shown: UnlistedShown[] = [];
    for (const [n, result] of results.entries()) {
      const { link, outcome, stage, counterStatus } = updates[n];
      const what =
        counterStatus === 'expired'
          ? `ended with the counter on it (its own expiry or the counter's passed)`
          : counterStatus !== null
            ? `ran out after its buyer's answer to the counter on it (${counterStatus})`
            : 'is past its expiry';
      if (!result.ok) {
        await this.recordErrors.record({
          brokerageId: crm.brokerageId,
          recordKind: 'offer',
          recordRef: link.remoteId,
          message: `offer ${link.remoteId} ${what} and is no longer listed by the service, but its CRM record ${link.crmId} could not be shown as expired: ${errorMessage(result.error)}`,
          code: result.error.code,
        });
        continue;
      }
      if (outcome === 'counter-ended') await this.counterEnded(crm.brokerageId, counters.get(link.remoteId));
      shown.push({
        offerId: link.remoteId,
        crmId: link.crmId,
        stage,
        counterStatus,
      });
      this.logger.log(
        `${crm.brokerageId}: offer ${link.remoteId} ${what} and is no longer listed; CRM record ${link.crmId} shows it expired${counterStatus !== null ? `, counter ${counterStatus}` : ''}`,
      );
    }
    return shown;
  }

  // The counter's link says it lapsed, as the record now does: its reminders close, and a buyer's
  // answer read later replaces it (isInferredCounterEnd). Compare-and-set: a buyer's answer written
  // since the read is never overwritten.
  private async counterEnded(brokerageId: string, known: KnownCounter | undefined): Promise<void> {
    if (!known || isAnsweredCounter(known.counter.status)) return;
    const { row, counter } = known;
    await this.links.replaceContent(
      brokerageId,
      LINK.counter,
      row.remoteId,
      row.contentHash,
      encodeCounterLink({ ...counter, status: 'expired' }),
    );
  }
}

// A counter link as read, and what it says.
interface KnownCounter {
  row: Pick<Link, 'remoteId' | 'contentHash'>;
  counter: CounterLinkContent;
}

interface Ending {
  link: Link;
  record: CrmRecord;
  outcome: 'expired' | 'counter-ended';
}
