import type { CrmCursor, CrmKind, CrmPlacement, CrmProperties, CrmRecord } from '../crm.types';
import { LINKED_DEALS_FIELD } from './followupboss.constants';
import { fubFieldName } from './followupboss-field-names';
import type { FubDeal, FubPerson, FubRecord } from './followupboss.wire';

// One FUB value as the port's text: numbers as plain decimals, booleans as true/false, nothing as null.
function text(value: unknown): string | null {
  if (value === undefined || value === null || value === '') return null;
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : null;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

// A person's emails and phones are lists in FUB; the port sees the first of each.
function fieldValue(kind: CrmKind, record: FubRecord, name: string): string | null {
  if (kind === 'contact' && name === 'email') return text((record as FubPerson).emails?.[0]?.value);
  if (kind === 'contact' && name === 'phone') return text((record as FubPerson).phones?.[0]?.value);
  return text(record[fubFieldName(name)]);
}

export function toCrmRecord(kind: CrmKind, record: FubRecord, properties: string[]): CrmRecord {
  const props: CrmProperties = {};
  for (const name of properties) props[name] = fieldValue(kind, record, name);
  const out: CrmRecord = {
    id: String(record.id),
    kind,
    properties: props,
    updatedAt: isoOf(record.updated),
    ...(record.created ? { createdAt: isoOf(record.created) } : {}),
  };
  if (kind === 'deal') {
    const deal = record as FubDeal;
    if (deal.pipelineId !== undefined) out.pipelineId = String(deal.pipelineId);
    if (deal.stageId !== undefined) out.stageId = String(deal.stageId);
  }
  return out;
}

// Whom a deal names: its people (FUB's own link) and the deals the adapter linked it to.
export function dealLinks(deal: FubDeal): { contact: string[]; deal: string[] } {
  return {
    contact: (deal.people ?? []).map((p) => String(p.id)),
    deal: linkedDealIds(deal),
  };
}

export function linkedDealIds(deal: FubDeal): string[] {
  const raw = text(deal[fubFieldName(LINKED_DEALS_FIELD)]);
  return raw
    ? raw
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '')
    : [];
}

// Port properties -> a FUB request body. null clears a value (FUB clears a custom field set to
// null, crm-apis.md B6). A person's email and phone become one-element lists. A deal's stage
// decides its pipeline in FUB, so only stageId is sent.
export function toFubBody(
  kind: CrmKind,
  properties: CrmProperties,
  placement: CrmPlacement,
  numberFields: ReadonlySet<string>,
): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(properties)) {
    if (kind === 'contact' && name === 'email') body.emails = value ? [{ value }] : [];
    else if (kind === 'contact' && name === 'phone') body.phones = value ? [{ value }] : [];
    else {
      const field = fubFieldName(name);
      // A number field gets a JSON number; text that is not one goes as it is, for FUB to refuse.
      const n = value !== null && numberFields.has(field) && value.trim() !== '' ? Number(value) : NaN;
      body[field] = Number.isFinite(n) ? n : value;
    }
  }
  if (kind === 'deal' && placement.stageId !== undefined) body.stageId = Number(placement.stageId);
  return body;
}

export function cursorOf(record: CrmRecord): CrmCursor {
  return { updatedAt: record.updatedAt, id: record.id };
}

function isoOf(value: string | undefined): string {
  const ms = value ? Date.parse(value) : NaN;
  return new Date(Number.isFinite(ms) ? ms : 0).toISOString();
}
