import { Injectable, Logger } from '@nestjs/common';
import type { BrokerageCrm } from '../../brokerages/brokerage-crm';
import { Clock } from '../../common/clock';
import { CASH_OFFERS_PIPELINE } from '../../crm';
import { LedgerTurns, LinkRepository, RecordErrorRepository } from '../../ledger';
import { errorMessage } from '../common/job-counts';
import { LINK } from '../common/listing-deal.properties';
import { HeldStages } from './held-stages.service';
import { OFFER, offerStageId } from './offer-record.properties';
import { stageFor } from './offer-record.view';

const CRM_BATCH = 100;

export type UnlistedOutcome = 'expired' | 'wait' | 'settled';

// What an offer record shows once GET /offers no longer lists its offer. The spec shows no status
// beyond active, accepted and rejected: a service may drop an offer past `offer_expires` from the
// list instead of listing it `expired`. An offer the record still shows `active` whose own
// expiry has passed is then shown as expired (never left Incoming for ever); one not yet past it is
// looked at again by the next reconcile; a decided one keeps what it shows (nothing to change).
export function unlistedOfferOutcome(
  shown: { status?: string | null; expires?: string | null },
  nowMs: number,
): UnlistedOutcome {
  if ((shown.status ?? '') !== 'active') return 'settled';
  const expiresMs = crmTimeMs(shown.expires);
  return expiresMs !== undefined && expiresMs <= nowMs ? 'expired' : 'wait';
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
  ) {}

  // `listed`: every offer id the pass read (valid only after a complete, error-free pass).
  show(crm: BrokerageCrm, listed: ReadonlySet<string>, runId: number): Promise<number> {
    return this.turns.run(`offers:${crm.brokerageId}`, () => this.showUnlisted(crm, listed, runId));
  }

  private async showUnlisted(crm: BrokerageCrm, listed: ReadonlySet<string>, runId: number): Promise<number> {
    const unlisted = (await this.links.listNotSeenIn(crm.brokerageId, LINK.offer, runId)).filter(
      (link) => !listed.has(link.remoteId),
    );
    let expired = 0;
    for (let start = 0; start < unlisted.length; start += CRM_BATCH) {
      const batch = unlisted.slice(start, start + CRM_BATCH);
      const records = new Map(
        (
          await crm.port.getRecords(
            'deal',
            batch.map((l) => l.crmId),
            [OFFER.status, OFFER.expires],
          )
        ).map((r) => [r.id, r]),
      );
      const settled: string[] = [];
      const updates = [];
      for (const link of batch) {
        const record = records.get(link.crmId);
        // A record deleted in the CRM: nothing to show it on.
        const outcome = record
          ? unlistedOfferOutcome(
              { status: record.properties[OFFER.status], expires: record.properties[OFFER.expires] },
              this.clock.nowMs(),
            )
          : 'settled';
        if (outcome === 'settled') settled.push(link.remoteId);
        if (outcome !== 'expired') continue;
        // Status always; the stage only out of Incoming: a record the agent moved stays where it is.
        const stage = crm.stages.resolve(record!.pipelineId, record!.stageId);
        const fromIncoming = stage?.pipelineKey === CASH_OFFERS_PIPELINE && stage.stageKey === 'incoming';
        updates.push({
          link,
          input: this.expiredInput(crm, link.crmId, fromIncoming),
          stageIdRead: record!.stageId,
        });
      }
      const results =
        updates.length > 0
          ? await crm.port.updateRecords(
              'deal',
              updates.map((u) => u.input),
            )
          : [];
      // An agent's move made since the read above, written over, is put back (HeldStages).
      await this.heldStages.putBackOverwritten(
        crm,
        updates.flatMap(({ link, input, stageIdRead }, n) =>
          results[n]?.ok && input.stageId !== undefined
            ? [{ offerKey: link.remoteId, recordId: link.crmId, stageId: input.stageId, stageIdRead }]
            : [],
        ),
      );
      for (const [n, result] of results.entries()) {
        const { link } = updates[n];
        if (!result.ok) {
          await this.recordErrors.record({
            brokerageId: crm.brokerageId,
            recordKind: 'offer',
            recordRef: link.remoteId,
            message: `offer ${link.remoteId} is past its expiry and no longer listed by the service, but its CRM record ${link.crmId} could not be shown as expired: ${errorMessage(result.error)}`,
            code: result.error.code,
          });
          continue;
        }
        settled.push(link.remoteId);
        expired += 1;
        this.logger.log(
          `${crm.brokerageId}: offer ${link.remoteId} is past its expiry and no longer listed; CRM record ${link.crmId} shows it expired`,
        );
      }
      // Not looked at again; an offer the service lists again is written as listed (a link marked
      // gone that shows up again counts as changed).
      await this.links.markGone(crm.brokerageId, LINK.offer, settled);
    }
    return expired;
  }

  private expiredInput(crm: BrokerageCrm, id: string, moveStage: boolean) {
    return {
      id,
      properties: { [OFFER.status]: 'expired' },
      ...(moveStage
        ? {
            pipelineId: crm.stages.pipelineId(CASH_OFFERS_PIPELINE),
            stageId: offerStageId(crm.stages, stageFor('expired', undefined)),
          }
        : {}),
    };
  }
}
