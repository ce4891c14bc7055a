import { CashOfferError } from './cash-offer.error';
import {
  FULL_OFFERS_QUERY,
  answersPastLastPage,
  nextOffersForm,
  offersCall,
  pageOrEnd,
  refusesQuery,
  refusesSort,
  smallerLimit,
  sortAfterRefusal,
  type OffersQueryForm,
} from './list-query.negotiation';

const refusal = (status: number, message = 'bad query', keyRefused = false) =>
  new CashOfferError({
    code: status === 404 ? 'NOT_FOUND' : 'INVALID_RECORD',
    operation: 'listOffers',
    status,
    keyRefused,
    serviceError: { error: status, message },
    message: `listOffers: refused (${status}): ${message}`,
  });

describe('refusesQuery', () => {
  it('is a 400 or 422 refusal by the service, never a refused key, a local check or an outage', () => {
    expect(refusesQuery(refusal(400))).toBe(true);
    expect(refusesQuery(refusal(422))).toBe(true);
    expect(refusesQuery(refusal(400, 'invalid API key', true))).toBe(false);
    expect(refusesQuery(refusal(404))).toBe(false);
    expect(refusesQuery(CashOfferError.invalidRecord('listOffers', [{ field: 'limit', message: 'x' }]))).toBe(
      false,
    );
    expect(refusesQuery(new Error('400'))).toBe(false);
  });
});

describe('smallerLimit', () => {
  it.each([
    ['limit must be a whole number from 1 to 50; got "100"', 100, 50],
    ['limit: at most 25', 100, 25],
    ['limit too large', 100, 50],
    ['limit too large', 500, 100],
    ['bad request', 50, 25],
    ['bad request', 25, 10],
    ['limit must be at most 200', 100, 50],
  ])('%s after %i -> %i', (message, sent, next) => {
    expect(smallerLimit(message, sent)).toBe(next);
  });

  it('gives up at the spec default of 10: the refusal is not the page size', () => {
    expect(smallerLimit('bad request', 10)).toBeUndefined();
    expect(smallerLimit('limit must be from 1 to 5', 2)).toBeUndefined();
  });
});

describe('refusesSort', () => {
  it.each([
    ['sort must be one of offer_requested_at.desc, offer_requested_at.asc; got "offer_request_id.asc"', true],
    ['unsupported sort "offer_request_id.asc"', true],
    ['sort is not a query parameter of GET /active-offer-requests (limit, offset)', true],
    ['limit must be a whole number from 1 to 25; got "100" (sort is fine)', false],
    ['offset 40 is out of range', false],
  ])('"%s": %s', (message, expected) => {
    expect(refusesSort(message)).toBe(expected);
  });
});

describe('sortAfterRefusal', () => {
  it('asks an ascending order by submission time, then the default order, then gives up', () => {
    expect(sortAfterRefusal('offer_request_id.asc')).toEqual({ sort: 'offer_requested_at.asc' });
    expect(sortAfterRefusal('offer_requested_at.asc')).toEqual({ sort: undefined });
    expect(sortAfterRefusal('offer_requested_at.desc')).toEqual({ sort: undefined });
    expect(sortAfterRefusal(undefined)).toBeUndefined();
  });
});

describe('offersCall', () => {
  const request = { offer_request_id: 7, limit: 200, offset: 400 };

  it.each<[string, OffersQueryForm, Parameters<typeof offersCall>[1], ReturnType<typeof offersCall>]>([
    [
      'asks as wanted in the full form',
      FULL_OFFERS_QUERY,
      request,
      { kind: 'page', sent: { filters: true, limit: 200, offset: 400 } },
    ],
    [
      'caps the page at the size the service took',
      { filters: true, paging: true, maxLimit: 50 },
      request,
      { kind: 'page', sent: { filters: true, limit: 50, offset: 400 } },
    ],
    [
      'asks the service maximum where no limit is wanted',
      { filters: true, paging: true, maxLimit: 50 },
      {},
      { kind: 'page', sent: { filters: false, limit: 50, offset: undefined } },
    ],
    [
      'pages through every offer where filters are refused',
      { filters: false, paging: true, maxLimit: 25 },
      request,
      { kind: 'every', pageSize: 25, sent: { filters: false, limit: 25, offset: 0 } },
    ],
    [
      'pages without filters as wanted where none are asked',
      { filters: false, paging: true },
      { limit: 10 },
      { kind: 'page', sent: { filters: false, limit: 10, offset: undefined } },
    ],
    [
      'reads every offer in one GET where paging is refused',
      { filters: false, paging: false },
      request,
      { kind: 'plain', sent: { filters: false } },
    ],
  ])('%s', (_name, form, query, expected) => {
    expect(offersCall(form, query, 500)).toEqual(expected);
  });

  it('reads every offer in pages of the default size where filters are refused and no size is known', () => {
    expect(offersCall({ filters: false, paging: true }, { status: 'active' }, 500)).toMatchObject({
      kind: 'every',
      pageSize: 500,
    });
  });
});

describe('nextOffersForm', () => {
  const paged = { filters: true, limit: 500, offset: 0 };

  it('tries the page size the message names, keeping the filters', () => {
    expect(nextOffersForm(FULL_OFFERS_QUERY, paged, 'limit must be from 1 to 100')).toEqual({
      filters: true,
      paging: true,
      maxLimit: 100,
    });
  });

  it('drops the filters first when the message calls one unknown, even listing limit among those taken', () => {
    const message = 'offer_request_id is not a query parameter of GET /offers (limit, offset)';
    expect(nextOffersForm(FULL_OFFERS_QUERY, paged, message)).toEqual({ filters: false, paging: true });
    expect(nextOffersForm(FULL_OFFERS_QUERY, paged, 'unknown parameter: status')).toEqual({
      filters: false,
      paging: true,
    });
  });

  it('drops paging at once when the message calls limit or offset unknown', () => {
    for (const message of [
      'Unknown query parameter: limit',
      "unexpected parameter 'offset'",
      'limit is not a query parameter of GET /offers',
    ])
      expect(nextOffersForm(FULL_OFFERS_QUERY, paged, message)).toEqual({ filters: false, paging: false });
  });

  it('with an unhelpful message steps the page size down, then drops the filters, then paging', () => {
    let form: OffersQueryForm = FULL_OFFERS_QUERY;
    let limit = 500;
    const sizes: (number | undefined)[] = [];
    while (form.filters) {
      form = nextOffersForm(form, { filters: true, limit, offset: 0 }, 'bad request')!;
      sizes.push(form.filters ? form.maxLimit : undefined);
      limit = form.maxLimit ?? limit;
    }
    expect(sizes).toEqual([100, 50, 25, 10, undefined]);
    expect(form).toEqual({ filters: false, paging: true, maxLimit: 10 });
    expect(nextOffersForm(form, { filters: false, limit: 10, offset: 0 }, 'bad request')).toEqual({
      filters: false,
      paging: false,
    });
  });

  it('past the first page, a refusal naming no parameter is not the query: the end of the list, or a fault', () => {
    const later = { filters: true, limit: 100, offset: 300 };
    expect(nextOffersForm(FULL_OFFERS_QUERY, later, 'offset 300 is out of range')).toBeUndefined();
    expect(nextOffersForm(FULL_OFFERS_QUERY, later, 'internal error')).toBeUndefined();
    expect(nextOffersForm(FULL_OFFERS_QUERY, later, 'limit must be from 1 to 50')).toEqual({
      filters: true,
      paging: true,
      maxLimit: 50,
    });
  });

  it('has nothing left to drop after a plain GET was refused', () => {
    expect(nextOffersForm({ filters: false, paging: false }, { filters: false }, 'bad')).toBeUndefined();
  });
});

describe('pageOrEnd', () => {
  // A service whose page reads fail with `errors` in turn (then read [1]), and whose one-item read
  // just before the page answers `before`.
  const service = (errors: CashOfferError[], before: () => Promise<number[]> = async () => [99]) => {
    let calls = 0;
    const one = jest.fn(before);
    const read = jest.fn(async (limit: number): Promise<number[]> => {
      if (limit === 1) return one();
      const error = errors[calls++];
      if (error) throw error;
      return [1];
    });
    return { read, one };
  };
  const at = (offset: number, afterShortPage: boolean) => ({ limit: 50, offset, afterShortPage });

  it('takes a 404 past the first page, asked twice, for the end of the list', async () => {
    const { read, one } = service([refusal(404), refusal(404)]);
    await expect(pageOrEnd(read, at(100, false))).resolves.toEqual([]);
    expect(read).toHaveBeenCalledTimes(2);
    expect(one).not.toHaveBeenCalled();
  });

  it('takes a 400 right after a short page, twice, for the end', async () => {
    const { read, one } = service([refusal(400), refusal(400)]);
    await expect(pageOrEnd(read, at(37, true))).resolves.toEqual([]);
    expect(one).not.toHaveBeenCalled();
  });

  // A list whose length is a multiple of a capped page size ends on a full page.
  it('takes a 400 after a full page, twice, for the end only where the item just before it reads', async () => {
    const { read, one } = service([refusal(400), refusal(400)]);
    await expect(pageOrEnd(read, at(50, false))).resolves.toEqual([]);
    expect(read).toHaveBeenCalledWith(1, 49);
    expect(one).toHaveBeenCalledTimes(1);
    // That item gone too, the list's first place answering (an item or none): the list shrank under
    // the pass, and the page is past its end.
    const shrunk = service([refusal(400), refusal(400)], async () => []);
    await expect(pageOrEnd(shrunk.read, at(50, false))).resolves.toEqual([]);
    expect(shrunk.read.mock.calls.slice(2)).toEqual([
      [1, 49],
      [1, 0],
    ]);
    const gone = jest.fn(async (limit: number, offset: number): Promise<number[]> => {
      if (limit === 1 && offset === 0) return [7];
      throw refusal(400, 'offset out of range');
    });
    await expect(pageOrEnd(gone, at(50, false))).resolves.toEqual([]);
    // Nothing answers, not even the first place: an error, tried again next pass.
    const outage = service([refusal(400), refusal(400)], async () => {
      throw new CashOfferError({ code: 'UNAVAILABLE', operation: 'x', status: 503, message: 'x' });
    });
    await expect(pageOrEnd(outage.read, at(50, false))).rejects.toMatchObject({ status: 400 });
    const refusing = jest.fn(async (): Promise<number[]> => {
      throw refusal(400, 'unexpected error');
    });
    await expect(pageOrEnd(refusing, at(50, false))).rejects.toMatchObject({ status: 400 });
    // A passing fault: the second ask reads the page, and nothing else is asked.
    const passing = service([refusal(400)]);
    await expect(pageOrEnd(passing.read, at(50, false))).resolves.toEqual([1]);
    expect(passing.one).not.toHaveBeenCalled();
  });

  it('reads the page when the second ask succeeds (a passing fault), and never ends the first page', async () => {
    await expect(pageOrEnd(service([refusal(404)]).read, at(100, true))).resolves.toEqual([1]);
    await expect(pageOrEnd(service([refusal(404)]).read, at(0, true))).rejects.toMatchObject({
      status: 404,
    });
  });

  it('never takes a refused key or an outage for the end', async () => {
    expect(answersPastLastPage(refusal(404, 'unknown API key', true), true)).toBe(false);
    const outage = new CashOfferError({ code: 'UNAVAILABLE', operation: 'x', status: 503, message: 'x' });
    expect(answersPastLastPage(outage, true)).toBe(false);
  });
});
