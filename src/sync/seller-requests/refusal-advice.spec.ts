import { CashOfferError } from '../../cash-offer';
import { refusalAdvice } from './refusal-advice';

describe('refusalAdvice: what the deal says when the service refuses its request', () => {
  it('blames the key, not the deal, for a refused key (401/403)', () => {
    const auth = new CashOfferError({
      code: 'AUTH_FAILED',
      operation: 'createOfferRequest',
      message: '403 Forbidden',
    });
    expect(refusalAdvice(auth)).toContain('Nothing is wrong with the deal');
    expect(refusalAdvice(auth)).not.toContain('Fix the deal');
  });

  it('says a request waiting for the key goes on its own, and one refused for good needs the deal moved again', () => {
    const refusal = (status: number, keyRefused: boolean) =>
      new CashOfferError({
        code: 'AUTH_FAILED',
        operation: 'createOfferRequest',
        message: 'refused',
        status,
        keyRefused,
      });
    expect(refusalAdvice(refusal(401, true))).toContain('the request is sent on its own once the key works');
    expect(refusalAdvice(refusal(403, true))).toContain('the request is sent on its own once the key works');
    expect(refusalAdvice(refusal(403, false))).toContain('move the deal to the trigger stage again');
  });

  it('asks for the deal to be fixed when the request itself was refused', () => {
    const invalid = new CashOfferError({
      code: 'INVALID_RECORD',
      operation: 'createOfferRequest',
      message: 'StreetName is 57 characters; the service allows 50',
    });
    expect(refusalAdvice(invalid)).toContain('Fix the deal');
  });
});
