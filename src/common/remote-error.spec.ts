import { CashOfferError } from '../cash-offer/cash-offer.error';
import { CrmError } from '../crm/crm.error';
import { waitsOnRemote } from './remote-error';

describe('waitsOnRemote', () => {
  it.each([
    [
      'the service unreachable',
      true,
      new CashOfferError({ code: 'UNAVAILABLE', operation: 'listOffers', message: 'x' }),
    ],
    [
      'the service rate limiting',
      true,
      new CashOfferError({ code: 'RATE_LIMITED', operation: 'listOffers', message: 'x' }),
    ],
    ['the CRM down', true, new CrmError('UNAVAILABLE', 'x', { status: 503 })],
    ['the CRM token refused', true, new CrmError('AUTH_FAILED', 'x', { status: 401 })],
    [
      'the service refusing the key in a 400',
      true,
      new CashOfferError({
        code: 'AUTH_FAILED',
        operation: 'listOffers',
        message: 'x',
        status: 400,
        keyRefused: true,
      }),
    ],
    ['the CRM refusing a record', false, new CrmError('INVALID_RECORD', 'x', { status: 400 })],
    [
      'a 403 on a record',
      false,
      new CashOfferError({ code: 'AUTH_FAILED', operation: 'decideOffer', message: 'x', status: 403 }),
    ],
    [
      'a conflict',
      false,
      new CashOfferError({ code: 'CONFLICT', operation: 'decideOffer', message: 'x', status: 409 }),
    ],
    ['a plain error', false, new Error('offer request 7 is not linked yet')],
  ])('%s: waits %s', (_what, waits, error) => {
    expect(waitsOnRemote(error)).toBe(waits);
  });
});
