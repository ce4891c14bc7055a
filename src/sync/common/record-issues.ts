import { Injectable, Logger } from '@nestjs/common';
import type { BrokerageCrm } from '../../brokerages/brokerage-crm';
import type { CrmRecord } from '../../crm';
import { RecordErrorRepository } from '../../ledger';
import { errorMessage } from './job-counts';

export interface RecordIssue {
  message: string;
  field?: string | null;
  code?: string | null;
}

// A record-level failure is shown where the agent works (a property on the CRM record) and kept in
// the ledger for `errors`; both are cleared once the record goes through. The property is written
// only when its text changes, so a record that stays broken costs no CRM write per cycle.
@Injectable()
export class RecordIssues {
  private readonly logger = new Logger(RecordIssues.name);

  constructor(private readonly errors: RecordErrorRepository) {}

  async report(
    crm: BrokerageCrm,
    record: Pick<CrmRecord, 'id' | 'properties'>,
    property: string,
    issues: RecordIssue[],
  ): Promise<void> {
    for (const issue of issues) {
      await this.errors.record({
        brokerageId: crm.brokerageId,
        recordKind: 'deal',
        recordRef: record.id,
        field: issue.field ?? null,
        message: issue.message,
        code: issue.code ?? null,
      });
    }
    const text = issues.map((i) => i.message).join('\n');
    if ((record.properties[property] ?? '') === text) return;
    await this.write(crm, record.id, property, text);
  }

  async clear(
    crm: BrokerageCrm,
    record: Pick<CrmRecord, 'id' | 'properties'>,
    property: string,
  ): Promise<void> {
    await this.errors.resolve(crm.brokerageId, 'deal', record.id);
    if (!record.properties[property]) return;
    await this.write(crm, record.id, property, null);
  }

  private async write(crm: BrokerageCrm, id: string, property: string, value: string | null): Promise<void> {
    const [result] = await crm.port.updateRecords('deal', [{ id, properties: { [property]: value } }]);
    if (result && !result.ok) {
      // The ledger still holds the error; the CRM shows it next time.
      this.logger.warn(`deal ${id}: could not write ${property}: ${errorMessage(result.error)}`);
    }
  }
}
