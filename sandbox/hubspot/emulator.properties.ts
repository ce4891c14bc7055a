import type { PropertyProblem } from './emulator.errors';
import type { ObjectType, PropertyDef, PropertyType } from './emulator.types';

// The properties a fresh portal has, enough for the daemon and the SDK's calls. An enumeration
// lists its allowed values.
type Seed = [name: string, type: PropertyType, label: string, readOnly?: boolean, options?: string[]];

const COMMON: Seed[] = [
  ['hs_object_id', 'number', 'Record ID', true],
  ['createdate', 'datetime', 'Create Date', true],
  ['hs_lastmodifieddate', 'datetime', 'Last Modified Date', true],
  ['hubspot_owner_id', 'string', 'Owner'],
];

const SEEDS: Record<ObjectType, Seed[]> = {
  contacts: [
    ...COMMON,
    ['lastmodifieddate', 'datetime', 'Last Modified Date', true],
    ['email', 'string', 'Email'],
    ['firstname', 'string', 'First Name'],
    ['lastname', 'string', 'Last Name'],
    ['phone', 'string', 'Phone Number'],
    ['mobilephone', 'string', 'Mobile Phone Number'],
    ['company', 'string', 'Company Name'],
    ['address', 'string', 'Street Address'],
    ['city', 'string', 'City'],
    ['state', 'string', 'State/Region'],
    ['zip', 'string', 'Postal Code'],
    ['lifecyclestage', 'string', 'Lifecycle Stage'],
  ],
  deals: [
    ...COMMON,
    ['dealname', 'string', 'Deal Name'],
    ['amount', 'number', 'Amount'],
    ['closedate', 'datetime', 'Close Date'],
    ['pipeline', 'string', 'Pipeline'],
    ['dealstage', 'string', 'Deal Stage'],
    ['dealtype', 'string', 'Deal Type'],
    ['description', 'string', 'Deal Description'],
  ],
  notes: [
    ...COMMON,
    ['hs_note_body', 'string', 'Note Body'],
    ['hs_timestamp', 'datetime', 'Activity date'],
    ['hs_attachment_ids', 'string', 'Attachment IDs'],
  ],
  // The task properties of HubSpot's tasks guide (https://developers.hubspot.com/docs/api/crm/tasks):
  // hs_timestamp is the due date; status "either COMPLETED or NOT_STARTED"; priority LOW, MEDIUM or
  // HIGH; type EMAIL, CALL or TODO; reminders as epoch milliseconds.
  tasks: [
    ...COMMON,
    ['hs_timestamp', 'datetime', 'Due date'],
    ['hs_task_subject', 'string', 'Task Title'],
    ['hs_task_body', 'string', 'Notes'],
    ['hs_task_status', 'enumeration', 'Task Status', false, ['NOT_STARTED', 'COMPLETED']],
    ['hs_task_priority', 'enumeration', 'Priority', false, ['LOW', 'MEDIUM', 'HIGH']],
    ['hs_task_type', 'enumeration', 'Task Type', false, ['EMAIL', 'CALL', 'TODO']],
    ['hs_task_reminders', 'string', 'Reminders'],
  ],
};

export const DEFAULT_GROUP: Record<ObjectType, string> = {
  contacts: 'contactinformation',
  deals: 'dealinformation',
  notes: 'engagement',
  tasks: 'task',
};

// Returned when a read names no properties (HubSpot's default sets).
export const DEFAULT_READ_PROPERTIES: Record<ObjectType, string[]> = {
  contacts: ['createdate', 'email', 'firstname', 'hs_object_id', 'lastmodifieddate', 'lastname'],
  deals: [
    'dealname',
    'amount',
    'closedate',
    'pipeline',
    'dealstage',
    'createdate',
    'hs_lastmodifieddate',
    'hs_object_id',
  ],
  notes: ['hs_note_body', 'hs_timestamp', 'createdate', 'hs_lastmodifieddate', 'hs_object_id'],
  tasks: [
    'hs_task_subject',
    'hs_task_status',
    'hs_timestamp',
    'createdate',
    'hs_lastmodifieddate',
    'hs_object_id',
  ],
};

// Always returned beside the properties a read asks for.
export const ALWAYS_RETURNED: Record<ObjectType, string[]> = {
  contacts: ['createdate', 'hs_object_id', 'lastmodifieddate'],
  deals: ['createdate', 'hs_lastmodifieddate', 'hs_object_id'],
  notes: ['createdate', 'hs_lastmodifieddate', 'hs_object_id'],
  tasks: ['createdate', 'hs_lastmodifieddate', 'hs_object_id'],
};

export const FIELD_TYPES: Record<PropertyType, string[]> = {
  string: ['text', 'textarea', 'file', 'phonenumber', 'html'],
  number: ['number', 'calculation_equation'],
  date: ['date'],
  datetime: ['date'],
  enumeration: ['select', 'radio', 'checkbox', 'booleancheckbox'],
  bool: ['booleancheckbox'],
};

export function defaultProperties(type: ObjectType, now: string): PropertyDef[] {
  return SEEDS[type].map(([name, propType, label, readOnly, options], displayOrder) => ({
    name,
    label,
    type: propType,
    fieldType: FIELD_TYPES[propType][0],
    groupName: DEFAULT_GROUP[type],
    description: '',
    options: (options ?? []).map((value, order) => ({
      label: value,
      value,
      hidden: false,
      displayOrder: order,
    })),
    hasUniqueValue: false,
    hubspotDefined: true,
    readOnly: readOnly ?? false,
    displayOrder,
    hidden: false,
    formField: false,
    createdAt: now,
    updatedAt: now,
  }));
}

const NUMBER = /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/;
const EPOCH_MS = /^-?\d{1,15}$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
// The forms HubSpot documents for a date-time value: epoch milliseconds, or ISO 8601
// `YYYY-MM-DDThh:mm:ss.sTZD` (developers.hubspot.com/docs/faq/how-should-timestamps-be-formatted-for-hubspots-apis;
// the changelog "New standardization of date formats for HubSpot's Form Submissions API", 2022).
// Other text Date.parse would read (a space for the T, an hour-only offset) is refused.
const ISO_8601 = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?)?$/;

// Checks one value against its definition and returns the stored string form
// (datetimes as ISO-8601, dates as YYYY-MM-DD, booleans as true/false). Empty string clears.
export function normaliseValue(def: PropertyDef, raw: unknown): { value: string } | PropertyProblem {
  if (raw === null || raw === undefined || raw === '') return { value: '' };
  if (typeof raw !== 'string' && typeof raw !== 'number' && typeof raw !== 'boolean') {
    return { name: def.name, error: 'INVALID_VALUE', message: `${JSON.stringify(raw)} is not a valid value` };
  }
  const text = String(raw);
  switch (def.type) {
    case 'number':
      return NUMBER.test(text.trim())
        ? { value: String(Number(text)) }
        : { name: def.name, error: 'INVALID_INTEGER', message: `${text} is not a valid number` };
    case 'bool':
      return text === 'true' || text === 'false'
        ? { value: text }
        : {
            name: def.name,
            error: 'INVALID_BOOLEAN',
            message: `${text} is not a valid boolean: use true or false`,
          };
    case 'datetime':
    case 'date': {
      const ms = EPOCH_MS.test(text) ? Number(text) : ISO_8601.test(text) ? Date.parse(text) : Number.NaN;
      if (Number.isNaN(ms)) {
        return { name: def.name, error: 'INVALID_DATE', message: `${text} is not a valid date or date-time` };
      }
      const iso = new Date(ms).toISOString();
      if (def.type === 'datetime') return { value: iso };
      if (!ISO_DATE.test(text) && !iso.endsWith('T00:00:00.000Z')) {
        return {
          name: def.name,
          error: 'INVALID_DATE',
          message: `${text} is not midnight UTC; a date has no time`,
        };
      }
      return { value: iso.slice(0, 10) };
    }
    case 'enumeration': {
      const allowed = new Set(def.options.map((o) => o.value));
      const parts = def.fieldType === 'checkbox' ? text.split(';') : [text];
      const bad = parts.find((p) => !allowed.has(p));
      return bad === undefined
        ? { value: text }
        : {
            name: def.name,
            error: 'INVALID_OPTION',
            message: `${bad} was not one of the allowed options: [${[...allowed].join(', ')}]`,
          };
    }
    default:
      return text.length > 65536
        ? {
            name: def.name,
            error: 'TOO_LONG',
            message: `value is ${text.length} characters; the limit is 65536`,
          }
        : { value: text };
  }
}

// A sortable/comparable form of a stored value, by property type.
export function comparable(type: PropertyType | undefined, value: string): number | string {
  if (type === 'number') return Number(value);
  if (type === 'datetime' || type === 'date') return Date.parse(value);
  return value.toLowerCase();
}
