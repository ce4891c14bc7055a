import type { CrmKind } from './crm.types';

// What `setup-crm` must find or create, in vendor-neutral terms.
export type CrmPropertyType = 'string' | 'text' | 'number' | 'bool' | 'date' | 'datetime' | 'enumeration';

export interface CrmPropertySpec {
  kind: CrmKind;
  name: string;
  label: string;
  type: CrmPropertyType;
  group: string;
  description?: string;
  options?: { value: string; label: string }[];
  unique?: boolean;
}

export interface CrmPropertyGroupSpec {
  kind: CrmKind;
  name: string;
  label: string;
}

export interface CrmStageSpec {
  key: string;
  label: string;
  // Closed stages end the record's life in this pipeline, as a win or a loss.
  closed?: 'won' | 'lost';
}

export interface CrmPipelineSpec {
  kind: CrmKind;
  key: string;
  label: string;
  stages: CrmStageSpec[];
}

export interface CrmSchemaSpec {
  groups: CrmPropertyGroupSpec[];
  properties: CrmPropertySpec[];
  pipelines: CrmPipelineSpec[];
}

export type CrmSchemaOutcome = 'created' | 'already present' | 'updated';

export interface CrmSchemaItemReport {
  // e.g. "property deal.cash_offer_request_id", "pipeline cash_offers", "stage cash_offers.accepted"
  item: string;
  outcome: CrmSchemaOutcome;
  detail?: string;
}

// Logical pipeline/stage keys to the CRM's ids.
export interface CrmStageMapData {
  [pipelineKey: string]: { id: string; stages: Record<string, string> };
}

export interface CrmSchemaReport {
  items: CrmSchemaItemReport[];
  pipelines: CrmStageMapData;
}
