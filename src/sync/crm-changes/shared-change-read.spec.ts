import type { CrmCursor, CrmRecord } from '../../crm';
import type { ChangeStream } from './change-stream';
import { advancedCursor, recordsFor, sharedReadOptions, type StreamPosition } from './shared-change-read';

const at = (updatedAt: string, id: string): CrmCursor => ({ updatedAt, id });
const stream = (over: Partial<ChangeStream>): ChangeStream => ({
  stream: 'crm:deal:x',
  kind: 'deal',
  properties: [],
  ...over,
});
const deal = (id: string, updatedAt: string, over: Partial<CrmRecord> = {}): CrmRecord => ({
  id,
  kind: 'deal',
  updatedAt,
  pipelineId: 'listings',
  stageId: 'new',
  properties: {},
  ...over,
});

describe('sharedReadOptions', () => {
  it('reads from the oldest cursor with every property and association, and no filter', () => {
    const positions: StreamPosition[] = [
      {
        stream: stream({
          properties: ['a', 'b'],
          filter: { pipelineId: 'listings' },
          withAssociations: ['contact'],
        }),
        since: at('2026-01-01T00:05:00Z', '9'),
      },
      {
        stream: stream({ properties: ['b', 'c'], filter: { propertyEquals: { flag: 'true' } } }),
        since: at('2026-01-01T00:01:00Z', '4'),
      },
      {
        stream: stream({ properties: [], filter: { propertyHasValue: ['d'] } }),
        since: at('2026-01-01T00:01:00Z', '7'),
      },
    ];
    expect(sharedReadOptions('deal', positions)).toEqual({
      kind: 'deal',
      since: at('2026-01-01T00:01:00Z', '4'),
      properties: ['a', 'b', 'c', 'flag', 'd'],
      withAssociations: ['contact'],
    });
  });

  it('reads from the start when one consumer has no cursor yet', () => {
    const options = sharedReadOptions('contact', [
      { stream: stream({ kind: 'contact' }), since: at('2026-01-01T00:05:00Z', '9') },
      { stream: stream({ kind: 'contact' }), since: null },
    ]);
    expect(options.since).toBeNull();
    expect(options).not.toHaveProperty('withAssociations');
    expect(options).not.toHaveProperty('filter');
  });
});

describe('recordsFor', () => {
  const page = [
    deal('1', '2026-01-01T00:00:00.000Z'),
    deal('2', '2026-01-01T00:04:00.000Z', { stageId: 'trigger' }),
    deal('3', '2026-01-01T00:05:00.000Z'),
    deal('4', '2026-01-01T00:06:00.000Z', { pipelineId: 'offers' }),
  ];
  const ids = (records: CrmRecord[]) => records.map((r) => r.id);

  it('gives a consumer without a cursor every record its filter admits', () => {
    expect(
      ids(recordsFor(page, { stream: stream({ filter: { pipelineId: 'listings' } }), since: null }, 60_000)),
    ).toEqual(['1', '2', '3']);
  });

  it('gives a consumer that is ahead only what its own read would: from its cursor less the overlap', () => {
    const since = at('2026-01-01T00:05:00.000Z', '3');
    // 1 is older than its window; 2 is inside it (its own read would read it again); 3 is its cursor.
    expect(ids(recordsFor(page, { stream: stream({}), since }, 60_000))).toEqual(['2', '3', '4']);
    expect(ids(recordsFor(page, { stream: stream({}), since }, 0))).toEqual(['3', '4']);
    expect(
      ids(recordsFor(page, { stream: stream({ filter: { stageIds: ['trigger'] } }), since }, 0)),
    ).toEqual([]);
  });
});

describe('advancedCursor', () => {
  it('moves forward only', () => {
    const cursor = at('2026-01-01T00:05:00Z', '3');
    expect(advancedCursor(null, cursor)).toBe(cursor);
    expect(advancedCursor(cursor, at('2026-01-01T00:05:00Z', '4'))).toEqual(at('2026-01-01T00:05:00Z', '4'));
    expect(advancedCursor(cursor, at('2026-01-01T00:05:00Z', '3'))).toBeNull();
    expect(advancedCursor(cursor, at('2026-01-01T00:04:00Z', '99'))).toBeNull();
  });
});
