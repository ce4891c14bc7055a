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
  // The person's agent.
  assignedUserId?: number | string | null;
  created?: string;
  updated?: string;
  [field: string]: unknown;
}

export type FubRecord = FubDeal | FubPerson;

// A task on /v1/tasks: a live account answers `isCompleted` as 0/1.
export interface FubTask {
  id: number;
  personId?: number;
  name?: string;
  type?: string;
  assignedUserId?: number | null;
  isCompleted?: boolean | number;
  dueDate?: string | null;
  dueDateTime?: string | null;
}

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
