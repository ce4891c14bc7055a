import type { LoggerService } from '@nestjs/common';
import type { OperationSpec } from './cash-offer.operations';
import { checkWire, isPlainObject } from './schema';

const RECORD_IDS = ['offer_id', 'counter_offer_id', 'lead_id', 'offer_request_id', 'inventory_property_id'];

// Checks the service's answers against their wire classes. Tolerant, as docs/spec-decisions.md
// says the client must be: nothing is refused; an unknown field or a broken rule is logged once
// per operation and field, naming the record, and the answer is used as sent.
export class AnswerChecker {
  private readonly reported = new Set<string>();

  constructor(
    private readonly brokerageId: string,
    private readonly logger: Pick<LoggerService, 'warn'>,
  ) {}

  check(op: OperationSpec, body: unknown): void {
    if (!op.answer || body === undefined) return;
    for (const record of Array.isArray(body) ? body : [body]) {
      const { violations, unknown } = checkWire(op.answer, record);
      for (const v of [...violations, ...unknown]) {
        const key = `${op.name} ${v.field}`;
        if (this.reported.has(key)) continue;
        this.reported.add(key);
        this.logger.warn(
          `brokerage ${this.brokerageId}: ${op.name} answered ${recordName(record)} where ${v.message}; used as sent (logged once per field)`,
        );
      }
    }
  }
}

function recordName(record: unknown): string {
  if (!isPlainObject(record)) return 'a record';
  const id = RECORD_IDS.find((name) => typeof record[name] === 'number' || typeof record[name] === 'string');
  return id ? `${id} ${String(record[id])}` : 'a record';
}
