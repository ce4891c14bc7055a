import {
  changeFilterProperties,
  compareCrmCursor,
  matchesChangeFilter,
  withinChangeWindow,
} from './crm-change-filter';
import type { CrmChangeFilter, CrmRecord } from './crm.types';

const deal = (over: Partial<CrmRecord> = {}): CrmRecord => ({
  id: '11',
  kind: 'deal',
  pipelineId: 'listings',
  stageId: 'trigger',
  updatedAt: '2026-11-25T10:00:00.000Z',
  properties: { flag: 'true', request_id: '42', blank: '', nothing: null },
  ...over,
});

// Each row: a filter, a record, and whether a filtered read (HubSpot's search, Follow Up Boss's
// query and its after-read check) hands the record back.
const TABLE: [string, CrmChangeFilter | undefined, CrmRecord, boolean][] = [
  ['no filter', undefined, deal(), true],
  ['an empty filter', {}, deal(), true],
  ['the pipeline it is in', { pipelineId: 'listings' }, deal(), true],
  ['another pipeline', { pipelineId: 'offers' }, deal(), false],
  ['a pipeline, the record in none', { pipelineId: 'listings' }, deal({ pipelineId: undefined }), false],
  ['its stage among several', { stageIds: ['other', 'trigger'] }, deal(), true],
  ['a stage list without it', { stageIds: ['other'] }, deal(), false],
  ['a stage list, the record in none', { stageIds: ['trigger'] }, deal({ stageId: undefined }), false],
  ['an empty stage list (no condition)', { stageIds: [] }, deal({ stageId: undefined }), true],
  ['pipeline and stage both hold', { pipelineId: 'listings', stageIds: ['trigger'] }, deal(), true],
  ['pipeline holds, stage does not', { pipelineId: 'listings', stageIds: ['other'] }, deal(), false],
  ['a property equal', { propertyEquals: { flag: 'true' } }, deal(), true],
  ['a property different', { propertyEquals: { flag: 'false' } }, deal(), false],
  ['a property in another case (exact text)', { propertyEquals: { flag: 'TRUE' } }, deal(), false],
  ['a property empty', { propertyEquals: { blank: 'true' } }, deal(), false],
  ['a property null', { propertyEquals: { nothing: 'true' } }, deal(), false],
  ['a property the record lacks', { propertyEquals: { absent: 'true' } }, deal(), false],
  ['two properties, one differs', { propertyEquals: { flag: 'true', request_id: '7' } }, deal(), false],
  ['two properties equal', { propertyEquals: { flag: 'true', request_id: '42' } }, deal(), true],
  ['has a value', { propertyHasValue: ['request_id'] }, deal(), true],
  ['has a value: empty text is none', { propertyHasValue: ['blank'] }, deal(), false],
  ['has a value: null is none', { propertyHasValue: ['nothing'] }, deal(), false],
  ['has a value: absent is none', { propertyHasValue: ['absent'] }, deal(), false],
  ['has a value: a space is one', { propertyHasValue: ['x'] }, deal({ properties: { x: ' ' } }), true],
  [
    'everything at once',
    {
      pipelineId: 'listings',
      stageIds: ['trigger'],
      propertyEquals: { flag: 'true' },
      propertyHasValue: ['request_id'],
    },
    deal(),
    true,
  ],
  [
    'everything but one value',
    {
      pipelineId: 'listings',
      stageIds: ['trigger'],
      propertyEquals: { flag: 'true' },
      propertyHasValue: ['blank'],
    },
    deal(),
    false,
  ],
  [
    'a contact with a flag',
    { propertyEquals: { submit: 'true' } },
    { id: '5', kind: 'contact', updatedAt: deal().updatedAt, properties: { submit: 'true' } },
    true,
  ],
];

describe('matchesChangeFilter', () => {
  it.each(TABLE)('%s', (_name, filter, record, admitted) => {
    expect(matchesChangeFilter(record, filter)).toBe(admitted);
  });
});

describe('changeFilterProperties', () => {
  it('names the properties a filter reads', () => {
    expect(
      changeFilterProperties({ pipelineId: 'p', propertyEquals: { a: '1' }, propertyHasValue: ['b'] }),
    ).toEqual(['a', 'b']);
    expect(changeFilterProperties(undefined)).toEqual([]);
  });
});

describe('compareCrmCursor', () => {
  it('orders by time, then by id as a number', () => {
    const at = (updatedAt: string, id: string) => ({ updatedAt, id });
    expect(compareCrmCursor(at('2026-01-01T00:00:00Z', '9'), at('2026-01-01T00:00:01Z', '1'))).toBeLessThan(
      0,
    );
    expect(compareCrmCursor(at('2026-01-01T00:00:00Z', '9'), at('2026-01-01T00:00:00Z', '10'))).toBeLessThan(
      0,
    );
    expect(
      compareCrmCursor(at('2026-01-01T00:00:00Z', 'b'), at('2026-01-01T00:00:00Z', 'a')),
    ).toBeGreaterThan(0);
    expect(compareCrmCursor(at('2026-01-01T00:00:00Z', '7'), at('2026-01-01T00:00:00.000Z', '7'))).toBe(0);
  });
});

describe('withinChangeWindow', () => {
  const since = { updatedAt: '2026-01-01T00:10:00.000Z', id: '3' };
  it('is everything without a cursor, else from the overlap before the cursor', () => {
    expect(withinChangeWindow('2000-01-01T00:00:00Z', null, 60_000)).toBe(true);
    expect(withinChangeWindow('2026-01-01T00:09:00.000Z', since, 60_000)).toBe(true);
    expect(withinChangeWindow('2026-01-01T00:08:59.999Z', since, 60_000)).toBe(false);
    expect(withinChangeWindow('2026-01-01T00:10:00.000Z', since, 0)).toBe(true);
  });
});
