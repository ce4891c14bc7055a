import { toCrmRecord, toFubBody } from './followupboss-record.mapper';
import { retryAfterMs, toCrmError } from './followupboss-error.mapper';
import { AxiosError, AxiosHeaders, type AxiosResponse } from 'axios';

describe('FUB record mapping', () => {
  it('reads a deal: port names from custom fields, text values, pipeline and stage, ISO times', () => {
    const record = toCrmRecord(
      'deal',
      {
        id: 42,
        name: 'Listing',
        price: 425000,
        stageId: 8,
        pipelineId: 2,
        created: '2026-11-01T10:00:00Z',
        updated: '2026-11-02T11:30:05Z',
        customCashOfferRequestId: '77',
        customCashOfferOfferCount: 3,
        customListingPool: null,
      },
      ['name', 'price', 'cash_offer_request_id', 'cash_offer_offer_count', 'listing_pool'],
    );
    expect(record).toEqual({
      id: '42',
      kind: 'deal',
      properties: {
        name: 'Listing',
        price: '425000',
        cash_offer_request_id: '77',
        cash_offer_offer_count: '3',
        listing_pool: null,
      },
      pipelineId: '2',
      stageId: '8',
      createdAt: '2026-11-01T10:00:00.000Z',
      updatedAt: '2026-11-02T11:30:05.000Z',
    });
  });

  it("reads a person's first email and phone", () => {
    const record = toCrmRecord(
      'contact',
      { id: 7, emails: [{ value: 'a@example.com' }, { value: 'b@example.com' }], phones: [] },
      ['email', 'phone'],
    );
    expect(record.properties).toEqual({ email: 'a@example.com', phone: null });
  });

  it('writes numbers as JSON numbers, null as a clear, the stage only (it decides the pipeline)', () => {
    const body = toFubBody(
      'deal',
      {
        price: '425000',
        cash_offer_offer_count: '3',
        cash_offer_sync_error: null,
        cash_offer_best_offer: 'n/a',
      },
      { pipelineId: '2', stageId: '8' },
      new Set(['price', 'customCashOfferOfferCount', 'customCashOfferBestOffer']),
    );
    expect(body).toEqual({
      price: 425000,
      customCashOfferOfferCount: 3,
      customCashOfferSyncError: null,
      customCashOfferBestOffer: 'n/a',
      stageId: 8,
    });
    expect(toFubBody('contact', { email: 'a@example.com' }, {}, new Set())).toEqual({
      emails: [{ value: 'a@example.com' }],
    });
  });
});

describe('FUB errors', () => {
  const failure = (status: number, data: unknown, headers: Record<string, string> = {}): AxiosError => {
    const response = {
      status,
      data,
      headers: new AxiosHeaders(headers),
      statusText: '',
      config: { headers: new AxiosHeaders() },
    } as AxiosResponse;
    return new AxiosError('failed', 'ERR_BAD_RESPONSE', undefined, undefined, response);
  };

  it("maps statuses to codes and keeps FUB's errorMessage", () => {
    expect(toCrmError(failure(400, { errorMessage: 'stageId is required' }), 'create deal 1')).toMatchObject({
      code: 'INVALID_RECORD',
      message: 'create deal 1: Follow Up Boss answered 400: stageId is required',
    });
    expect(toCrmError(failure(401, {}), 'x').code).toBe('AUTH_FAILED');
    expect(toCrmError(failure(404, {}), 'x').code).toBe('NOT_FOUND');
    expect(toCrmError(failure(503, {}), 'x')).toMatchObject({ code: 'UNAVAILABLE', retryable: true });
    expect(toCrmError(failure(429, {}, { 'retry-after': '7' }), 'x')).toMatchObject({
      code: 'RATE_LIMITED',
      retryAfterMs: 7000,
    });
    expect(toCrmError(new AxiosError('timeout', 'ECONNABORTED'), 'read').code).toBe('UNAVAILABLE');
  });

  it('reads Retry-After as seconds, falling back to a second', () => {
    expect(retryAfterMs('2')).toBe(2000);
    expect(retryAfterMs(undefined)).toBe(1000);
  });
});
