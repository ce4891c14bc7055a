import type { CallMatch } from '../call-match';
// What the Follow Up Boss emulator holds and how it misbehaves on request.
export type FieldType = 'text' | 'date' | 'number' | 'dropdown';

export interface CustomFieldDef {
  id: number;
  name: string;
  label: string;
  type: FieldType;
  choices: string[];
  orderWeight: number;
  hideIfEmpty: boolean;
  readOnly: boolean;
}

export interface StoredRecord {
  id: number;
  created: string;
  updated: string;
  // Built-in and custom fields as FUB shows them.
  fields: Record<string, unknown>;
}

export interface StoredStage {
  id: number;
  name: string;
  orderWeight: number;
}

export interface StoredPipeline {
  id: number;
  name: string;
  description: string;
  orderWeight: number;
  stages: StoredStage[];
}

export interface RateLimitSetting {
  // Calls per sliding window for a registered system (a valid X-System-Key); half without one.
  max: number;
  windowMs: number;
}

export interface Faults {
  // Share of API calls answered with errorStatus instead (0..1).
  errorRate: number;
  errorStatus: number;
  // The next n API calls answer 429 with Retry-After.
  burst429: number;
  // Share of API calls handled and stored, then answered errorAfterCommitStatus instead of their
  // answer: a gateway that loses the answer on its way back after the write landed (0..1).
  errorAfterCommitRate: number;
  errorAfterCommitStatus: number;
  // Only calls from a registered system (X-System with its key, as integrations send) take the
  // errors above: an agent's own calls to the same account (a test's scripted agent) are left alone.
  systemOnly: boolean;
  // Only calls whose `<METHOD> <path under /v1>` starts with this (or with one of these) take the
  // errors and 429s above (`POST /tasks`); null: every call.
  match: CallMatch;
  latencyMs: number;
  // Each answer is held this long after the call was handled: the write lands, and a client that
  // gives up sooner never learns of it (an answer lost on the way back).
  answerDelayMs: number;
}

export interface RequestLogEntry {
  method: string;
  path: string;
  status: number;
  ms: number;
  // When the call arrived.
  at: string;
  // The X-System of a call made as a registered system (the daemon); null for a user's (an agent's).
  system: string | null;
  // A write's body as the emulator parsed it (in /__control/writes only).
  body?: unknown;
}

export class FubHttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const badRequest = (message: string): FubHttpError => new FubHttpError(400, message);
export const notFound = (what: string): FubHttpError => new FubHttpError(404, `${what} not found`);

// A stored scalar as text, for comparisons and messages (objects never are scalars here).
export function scalarText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}
