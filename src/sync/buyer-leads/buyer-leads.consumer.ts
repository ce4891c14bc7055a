import { Injectable, Logger } from '@nestjs/common';
import type { CrmUpdateInput } from '../../crm/crm.types';
import { UNIQUE_LISTING_KEY } from '../../crm/crm-schema';
import { OutboxRepository, outboxKey, RecordErrorRepository } from '../../ledger';
import type { OutboxCommand } from '../../ledger';
import type { JobContext } from '../../scheduler/job.types';
import type { ChangeStream } from '../crm-changes/change-stream';
import { ChangePagesConsumer, type ConsumedPage } from '../crm-changes/change-pages.consumer';
import { CrmChangeConsumer } from '../crm-changes/crm-change-consumer.decorator';
import {
  BUYER_LEADS_STREAM,
  CONTACT_PROPERTIES,
  LEAD_ERROR,
  LEAD_ID,
  LISTING_PROPERTIES,
  SUBMIT_BUYER_LEAD,
  SUBMIT_FLAG,
} from './buyer-lead.constants';
import { toBuyerLead } from './buyer-lead.mapper';
import { leadWriteBack, payloadOf } from './buyer-lead.executor';
import type { BuyerLeadPayload } from './buyer-lead.executor';
import { contentHash } from '../common/content-hash';
import { commandGenerations, currentGeneration } from '../common/command-generations';

// Buyer contacts flagged for submission: one outbox command per (contact, marketplace listing),
// keyed by both, so a contact read again (edits, the adapter's overlap window) is never sent twice.
@Injectable()
@CrmChangeConsumer('buyer-leads')
export class BuyerLeadsConsumer extends ChangePagesConsumer {
  private readonly logger = new Logger(BuyerLeadsConsumer.name);

  constructor(
    private readonly outbox: OutboxRepository,
    private readonly recordErrors: RecordErrorRepository,
  ) {
    super();
  }

  stream(): ChangeStream {
    return {
      stream: BUYER_LEADS_STREAM,
      kind: 'contact',
      properties: CONTACT_PROPERTIES,
      filter: { propertyEquals: { [SUBMIT_FLAG]: 'true' } },
      withAssociations: ['deal'],
    };
  }

  async consumePage({ records: contacts, crm, ctx, counts }: ConsumedPage): Promise<void> {
    const dealIds = [...new Set(contacts.flatMap((c) => c.associations?.deal ?? []))];
    const deals = dealIds.length === 0 ? [] : await crm.port.getRecords('deal', dealIds, LISTING_PROPERTIES);
    const listings = new Map(deals.filter((d) => d.properties[UNIQUE_LISTING_KEY]).map((d) => [d.id, d]));
    const messages: CrmUpdateInput[] = [];
    for (const contact of contacts) {
      counts.read++;
      const linked = (contact.associations?.deal ?? [])
        .map((id) => listings.get(id))
        .filter((d) => d !== undefined);
      const problems: string[] = [];
      if (linked.length === 0)
        problems.push(
          `contact ${contact.id} is flagged to submit as a buyer lead but is not associated with any marketplace listing`,
        );
      for (const listing of linked) {
        const lead = toBuyerLead({ contact, listing });
        let command: OutboxCommand | null;
        if (lead.ok) {
          const payload: BuyerLeadPayload = {
            contactId: contact.id,
            listingKey: lead.listingKey,
            dealId: listing.id,
            body: lead.body,
          };
          const queued = await this.enqueue(ctx, payload);
          command = queued.command;
          if (queued.created) counts.created++;
          else counts.unchanged++;
        } else {
          // A lead already made on this listing stands whatever the listing or the contact shows
          // now: a listing that left the marketplace after it, a contact ticked again, is no problem
          // of that lead (before, such a contact showed its lead id beside an error).
          const listingKey = listing.properties[UNIQUE_LISTING_KEY]?.trim();
          command = listingKey
            ? ((await this.current(ctx.brokerage.id, contact.id, listingKey)).command ?? null)
            : null;
          if (!command) {
            problems.push(...lead.problems);
            continue;
          }
          counts.unchanged++;
        }
        // Sent and answered, yet the contact never got its write-back (the daemon stopped in between):
        // the adapter reads recent contacts again, so the write-back is repaired here from the ledger.
        if (command?.state === 'done' && !contact.properties[LEAD_ID]?.trim() && !ctx.dryRun)
          messages.push({ id: contact.id, properties: leadWriteBack(command, command.result) });
      }
      if (problems.length > 0) {
        counts.failed++;
        const text = problems.join('\n');
        if (!ctx.dryRun) {
          await this.recordErrors.record({
            brokerageId: ctx.brokerage.id,
            recordKind: 'contact',
            recordRef: contact.id,
            message: text,
            code: 'INVALID_RECORD',
          });
          if ((contact.properties[LEAD_ERROR] ?? '') !== text)
            messages.push({ id: contact.id, properties: { [LEAD_ERROR]: text } });
        }
      }
    }
    if (messages.length === 0) return;
    for (const result of await crm.port.updateRecords('contact', messages))
      if (!result.ok)
        this.logger.warn(
          `contact ${result.key}: could not write the buyer lead status: ${result.error.message}`,
        );
  }

  // Whether a new command was queued, and the live command of the (contact, listing); a dry run
  // only looks. A lead the service refused (dead) is superseded by the next generation once the
  // contact sends something else (which lead fields are required is not shown: a refusal may name
  // one the agent then fills); the same body is not sent again.
  private async enqueue(
    ctx: JobContext,
    payload: BuyerLeadPayload,
  ): Promise<{ created: boolean; command: OutboxCommand | null }> {
    const brokerageId = ctx.brokerage.id;
    const recordRef = `contact:${payload.contactId}`;
    const current = await this.current(brokerageId, payload.contactId, payload.listingKey);
    if (current.command) return { created: false, command: current.command };
    if (current.refused && contentHash(payloadOf(current.refused).body) === contentHash(payload.body))
      return { created: false, command: current.refused };
    if (ctx.dryRun) return { created: true, command: null };
    return this.outbox.enqueue({
      brokerageId,
      idempotencyKey: current.key,
      operation: SUBMIT_BUYER_LEAD,
      recordRef,
      payload,
    });
  }

  // The live lead command of a (contact, listing), or the key for a new one after any refused.
  private async current(
    brokerageId: string,
    contactId: string,
    listingKey: string,
  ): Promise<{ key: string; command?: OutboxCommand; refused?: OutboxCommand }> {
    const keyOf = (generation: number) => leadKey(brokerageId, contactId, listingKey, generation);
    const chain = await commandGenerations((generation) => this.outbox.findByKey(keyOf(generation)));
    const { generation, ...current } = currentGeneration(chain);
    return { key: keyOf(generation), ...current };
  }
}

// One contact may be a lead on several listings, once each: the listing is part of the key.
export function leadKey(
  brokerageId: string,
  contactId: string,
  listingKey: string,
  generation: number,
): string {
  const operation = generation === 1 ? SUBMIT_BUYER_LEAD : `${SUBMIT_BUYER_LEAD}#${generation}`;
  return outboxKey(brokerageId, `contact:${contactId}`, `${operation}@${listingKey}`);
}
