import type { CrmFieldMapping } from '../../crm/mapping/crm-field-mapping';
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

  const MAPPING: CrmFieldMapping = {
    BathroomsFull: { source: 'deal', properties: ['listing_bathrooms_full'] },
    LivingArea: { source: 'deal', properties: ['listing_living_area'] },
    Bathrooms: { source: 'deal', properties: ['listing_bathrooms'] },
    StreetName: { source: 'deal', properties: ['listing_street_name'] },
  };

  it('names the CRM property for each property field the refusal names (which are required is not shown)', () => {
    const required = new CashOfferError({
      code: 'INVALID_RECORD',
      operation: 'createOfferRequest',
      message: 'createOfferRequest: property.BathroomsFull is required; LivingArea is required',
    });
    const advice = refusalAdvice(required, MAPPING);
    expect(advice).toContain('BathroomsFull is the deal property listing_bathrooms_full');
    expect(advice).toContain('LivingArea is the deal property listing_living_area');
    // Not a field the refusal names, though its name is inside one that is.
    expect(advice).not.toContain('Bathrooms is');
    expect(advice).not.toContain('StreetName');
    expect(advice).toContain('Fix the deal');
  });
});
