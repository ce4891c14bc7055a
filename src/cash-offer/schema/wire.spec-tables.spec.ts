import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  BuyerLead,
  BuyerLeadBody,
  PushRequest,
  PushToMarketplaceResult,
  ServiceErrorBody,
  WebhookConfig,
} from './marketplace.dto';
import { Assumption, OfferRequestRecord, RequestObject } from './offer-request.dto';
import { CounterOfferBody, Offer } from './offer.dto';
import {
  PRELIM_INVENTORY_FIELDS,
  PrelimInventory,
  Property,
  UPDATABLE_PROPERTY_FIELDS,
  UpdatableProperty,
} from './property.dto';
import { NewOfferEvent, OfferRequestApprovedEvent } from './webhook-event.dto';
import { fieldsOf, type FieldSpec, type FieldType } from './wire-field.decorator';

// The wire classes against the spec's own field tables and lists (docs/spec/cash-offer-api.md, a
// copy of ../shared/spec/cash-offer-api.md): every field the spec names is in its class with the
// spec's type and nullability, and a class holds nothing else but what docs/spec-decisions.md adds.
const ROOT = join(__dirname, '../../..');
const SPEC = readFileSync(join(ROOT, 'docs/spec/cash-offer-api.md'), 'utf8');

type Dto = abstract new () => object;

function section(heading: string): string {
  const start = SPEC.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`the spec has no heading "${heading}"`);
  const rest = SPEC.slice(start + heading.length + 2);
  const end = rest.search(/\n#{2,3} /);
  return end < 0 ? rest : rest.slice(0, end);
}

// The rows of the first table of a section after `after`, as arrays of cells.
function tableRows(text: string, after = ''): string[][] {
  const from = after ? text.indexOf(after) : 0;
  const lines = text.slice(from).split('\n');
  const first = lines.findIndex((l) => l.startsWith('|'));
  const rows: string[][] = [];
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim()),
    );
  }
  return rows;
}

// `Name` lists after a lead-in ("Number fields: `A`, `B`.").
function namesAfter(text: string, leadIn: string): string[] {
  const start = text.indexOf(leadIn);
  if (start < 0) throw new Error(`the spec has no "${leadIn}"`);
  const line = text.slice(start + leadIn.length).split('\n')[0];
  return [...line.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
}

// The spec's words for a type, as the family of wire types that may carry it.
function specType(words: string): FieldType[] {
  const w = words.toLowerCase();
  if (w.startsWith('array of objects')) return ['object-array'];
  if (w.includes('timestamp')) return ['datetime'];
  if (w.startsWith('integer')) return ['integer'];
  if (w.startsWith('number')) return ['number', 'integer'];
  if (w.startsWith('boolean')) return ['boolean'];
  if (w.startsWith('object')) return ['object', 'nested'];
  if (w.startsWith('string')) return ['string', 'email', 'url', 'date', 'datetime'];
  if (w.startsWith('nullable')) return ['any'];
  throw new Error(`no wire type for the spec's "${words}"`);
}

interface SpecField {
  name: string;
  type: string;
}

function expectFields(dto: Dto, specFields: SpecField[], decidedExtras: string[] = []): void {
  const fields = fieldsOf(dto);
  const problems: string[] = [];
  for (const { name, type } of specFields) {
    const field: FieldSpec | undefined = fields[name];
    if (!field) {
      problems.push(`${dto.name}.${name} is in the spec but not in the class`);
      continue;
    }
    if (!specType(type).includes(field.type))
      problems.push(`${dto.name}.${name} is ${field.type}; the spec says "${type}"`);
    if (/nullable/.test(type) && !field.nullable)
      problems.push(`${dto.name}.${name} is nullable in the spec, not in the class`);
  }
  const named = new Set(specFields.map((f) => f.name));
  const extras = Object.keys(fields).filter((f) => !named.has(f));
  expect(problems).toEqual([]);
  expect(extras.sort()).toEqual([...decidedExtras].sort());
}

const rowsAsFields = (rows: string[][]): SpecField[] =>
  rows.flatMap(([names, type]) =>
    names.split(',').map((name) => ({ name: name.trim().replace(/`/g, ''), type })),
  );

describe('the wire classes follow the spec field tables', () => {
  it('use a copy of the shared spec that is up to date', () => {
    const shared = join(ROOT, '../shared/spec/cash-offer-api.md');
    if (existsSync(shared)) expect(SPEC).toBe(readFileSync(shared, 'utf8'));
  });

  it('offer request record', () => {
    const rows = tableRows(section('### Offer request record (response of creating a request)'));
    // offer_request_external_id: "given on the request" and echoed (spec-decisions.md).
    expectFields(OfferRequestRecord, rowsAsFields(rows), ['offer_request_external_id']);
  });

  it('request object', () => {
    const rows = tableRows(section('### Request object (`request`)'));
    // Where offer_request_external_id goes, and the request's own nullable fields (spec-decisions.md).
    expectFields(RequestObject, rowsAsFields(rows), [
      'offer_request_external_id',
      'offer_request_deal_type',
      'offer_request_is_mls',
    ]);
  });

  it('property: lengths, types, enums, required fields, prelim and updatable subsets', () => {
    const text = section('### Property object (`property`)');
    const lengths = tableRows(text, 'String fields with a maximum length');
    const enums = tableRows(text, 'Enumerated fields');
    const fields = fieldsOf(Property);
    for (const [name, max] of lengths)
      expect([name, fields[name]?.maxLength]).toEqual([name, Number.parseInt(max, 10)]);
    for (const [label, values] of enums) {
      const name = label.split(' ')[0];
      expect([name, fields[name]?.enum]).toEqual([name, values.split(', ')]);
      if (label.includes('(array of)')) expect([name, fields[name].type]).toEqual([name, 'string-array']);
      if (label.includes('(nullable)')) expect([name, fields[name].nullable]).toEqual([name, true]);
    }
    const typed: SpecField[] = [
      ...lengths.map(([name]) => ({ name, type: 'string' })),
      ...namesAfter(text, 'String fields without a declared length:').map((name) => ({
        name,
        type: 'string',
      })),
      ...namesAfter(text, 'Number fields:').map((name) => ({ name, type: 'number' })),
      ...namesAfter(text, 'Creation requests also use the numeric fields').map((name) => ({
        name,
        type: 'number',
      })),
      ...namesAfter(text, 'Integer fields:').map((name) => ({ name, type: 'integer' })),
      ...namesAfter(text, 'Boolean fields:').map((name) => ({ name, type: 'boolean' })),
      ...namesAfter(text, 'Date field:')
        .slice(0, 1)
        .map((name) => ({ name, type: 'string' })),
      ...namesAfter(text, 'Arrays of strings without an enum:').map((name) => ({ name, type: 'array' })),
    ];
    const arrays = typed.filter((f) => f.type === 'array').map((f) => f.name);
    const scalar = typed.filter((f) => f.type !== 'array');
    const enumOnly = enums
      .map(([label]) => label.split(' ')[0])
      .filter((n) => !typed.some((f) => f.name === n));
    expect(arrays.map((n) => fields[n]?.type)).toEqual(arrays.map(() => 'string-array'));
    expect(fields.LeaseExpiration.type).toBe('date');
    expectFields(Property, scalar, [...arrays, ...enumOnly]);
    // The stored shape's six: required, or (the street three) unless UnparsedAddress + City.
    const six = [...text.matchAll(/`(\w+)`/g)].map((m) => m[1]).slice(0, 6);
    expect(six.filter((n) => !fields[n].required && !fields[n].requiredUnless)).toEqual([]);
    const prelim = namesAfter(
      section('### POST /offer-requests/prelim'),
      'holding a subset of property fields:',
    );
    expect(Object.keys(fieldsOf(PrelimInventory))).toEqual(prelim);
    expect([...PRELIM_INVENTORY_FIELDS]).toEqual(prelim);
    const updatable = namesAfter(
      section('### PATCH /offer-requests/{offer_request_id}'),
      'Only these values can be updated:',
    );
    expect(Object.keys(fieldsOf(UpdatableProperty))).toEqual(updatable.filter((n) => n !== 'media'));
    expect([...UPDATABLE_PROPERTY_FIELDS]).toEqual(updatable.filter((n) => n !== 'media'));
  });

  it('analyst assumptions', () => {
    expectFields(
      Assumption,
      rowsAsFields(tableRows(section('### Analyst assumptions (`assumptions`, array)'))),
    );
  });

  it('offer', () => {
    // counter_offer_id: the counter an accepted-counter offer came from (spec-decisions.md).
    expectFields(Offer, rowsAsFields(tableRows(section('### Offer'))), ['counter_offer_id']);
  });

  it('counter offer', () => {
    expectFields(
      CounterOfferBody,
      rowsAsFields(tableRows(section('### Counter offer (request body fields)'))),
    );
  });

  it('buyer lead request and response', () => {
    const text = section('### Buyer lead');
    const request = namesAfter(text, 'Request fields:');
    expect(Object.keys(fieldsOf(BuyerLeadBody)).sort()).toEqual(
      request.filter((n) => !['offer_request_id', 'inventory_property_id'].includes(n)).sort(),
    );
    expect(namesAfter(text, 'Response fields:').filter((n) => !fieldsOf(BuyerLead)[n])).toEqual([]);
  });

  it('webhook configuration, push to the marketplace, the error object', () => {
    expect(Object.keys(fieldsOf(WebhookConfig))).toEqual(
      namesAfter(section('### Webhook configuration'), 'One field:'),
    );
    const push = section('### POST /push-to-marketplace');
    expect(Object.keys(fieldsOf(PushRequest))).toEqual(
      namesAfter(push, 'Body: `request` object with').slice(0, 2),
    );
    expect(Object.keys(fieldsOf(PushToMarketplaceResult))).toEqual(namesAfter(push, 'Response:'));
    const errors = tableRows(section('## Errors'));
    expectFields(ServiceErrorBody, rowsAsFields(errors));
    for (const [name, , required] of errors)
      expect([name, fieldsOf(ServiceErrorBody)[name].required]).toEqual([name, required === 'yes']);
  });

  it('webhook events: the body fields of each', () => {
    const events = Object.fromEntries(
      tableRows(section('## Events')).map(([event, , body]) => [event, body]),
    );
    const names = (event: string): string[] => [...events[event].matchAll(/`(\w+)`/g)].map((m) => m[1]);
    expect(Object.keys(fieldsOf(OfferRequestApprovedEvent)).sort()).toEqual(
      names('offer_request_approved').sort(),
    );
    // The offer's list-only amounts are not in the event; counter_offer_id is our decision.
    const newOffer = Object.keys(fieldsOf(NewOfferEvent)).filter(
      (f) =>
        !['buyer_broker_commission_amt', 'listing_broker_commission_amt', 'counter_offer_id'].includes(f),
    );
    expect(newOffer.sort()).toEqual(names('new_offer').sort());
  });
});
