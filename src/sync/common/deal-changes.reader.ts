import type { BrokerageCrm } from '../../brokerages/brokerage-crm';
import type { CrmChangeFilter, CrmCursor, CrmKind, CrmRecord } from '../../crm';
import { CursorRepository } from '../../ledger';

export interface ChangePage {
  records: CrmRecord[];
  // Persist with commit() once the page's work is done; never before.
  commit(): Promise<void>;
}

export interface ChangeStream {
  stream: string;
  kind: CrmKind;
  properties: string[];
  filter?: CrmChangeFilter;
  withAssociations?: CrmKind[];
}

// One consumer's own cursor over CRM changes: pages oldest first, the cursor moved per page only
// when the consumer says its work for that page is committed (and never on a dry run).
export async function* readChangePages(
  crm: BrokerageCrm,
  cursors: CursorRepository,
  spec: ChangeStream,
  options: { dryRun: boolean; signal: AbortSignal },
): AsyncIterable<ChangePage> {
  const saved = await cursors.get(crm.brokerageId, spec.stream);
  const since = saved ? (JSON.parse(saved) as CrmCursor) : null;
  const pages = crm.port.readChanges({
    kind: spec.kind,
    since,
    properties: spec.properties,
    filter: spec.filter,
    withAssociations: spec.withAssociations,
  });
  for await (const page of pages) {
    if (options.signal.aborted) return;
    yield {
      records: page.records,
      commit: async () => {
        if (!options.dryRun)
          await cursors.commitPage(crm.brokerageId, spec.stream, JSON.stringify(page.cursor));
      },
    };
  }
}
