import type { CrmChangeFilter, CrmKind } from '../../crm';

// What one CRM change consumer reads: its own cursor stream (a ledger cursor name), the kind of
// record, the properties and associations it needs, and the records it wants. The crm-changes job
// reads each kind once for all its consumers and gives each what its filter admits.
export interface ChangeStream {
  stream: string;
  kind: CrmKind;
  properties: string[];
  filter?: CrmChangeFilter;
  withAssociations?: CrmKind[];
}
