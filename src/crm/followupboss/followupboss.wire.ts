// The parts of FUB's JSON the adapter reads (crm-apis.md B2/B3/B6). Custom fields are top-level
// `customXxx` keys beside the built-in ones.
export interface FubDeal {
  id: number;
  name?: string;
  stageId?: number;
  pipelineId?: number;
  price?: number | null;
  description?: string | null;
  people?: { id: number; name?: string }[];
  created?: string;
  updated?: string;
  [field: string]: unknown;
}

export interface FubPerson {
  id: number;
  name?: string;
  firstName?: string | null;
  lastName?: string | null;
  emails?: { value: string }[];
  phones?: { value: string }[];
  created?: string;
  updated?: string;
  [field: string]: unknown;
}

export type FubRecord = FubDeal | FubPerson;

export interface FubMetadata {
  collection: string;
  offset: number;
  limit: number;
  total: number;
  next?: string | null;
  nextLink?: string | null;
}

export type FubPage = { _metadata: FubMetadata } & Record<string, unknown>;

export interface FubCustomField {
  id: number;
  name: string;
  label: string;
  type: 'text' | 'date' | 'number' | 'dropdown';
  choices?: string[];
}

export interface FubPipeline {
  id: number;
  name: string;
  orderWeight?: number;
  stages: { id: number; name: string; orderWeight?: number }[];
}
