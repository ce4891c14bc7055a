import { CashOfferError } from '../../cash-offer';
import { mayAlreadyBeInEffect } from './refusal.check';

const refusal = (code: CashOfferError['code'], status?: number) =>
  new CashOfferError({ code, operation: 'PATCH /offers', message: 'refused', ...(status ? { status } : {}) });

describe('mayAlreadyBeInEffect', () => {
  it('checks a 409 for every command', () => {
    expect(mayAlreadyBeInEffect(refusal('CONFLICT', 409), false)).toBe(true);
    expect(mayAlreadyBeInEffect(refusal('CONFLICT', 409), true)).toBe(true);
  });

  it("checks a service's 400 or 422 only where the executor reconciles refusals", () => {
    for (const status of [400, 422]) {
      expect(mayAlreadyBeInEffect(refusal('INVALID_RECORD', status), true)).toBe(true);
      expect(mayAlreadyBeInEffect(refusal('INVALID_RECORD', status), false)).toBe(false);
    }
  });

  it('never checks a refusal the client made itself, a refused key, a missing record or other errors', () => {
    // Refused by the client's own checks: no status, nothing was sent.
    expect(mayAlreadyBeInEffect(refusal('INVALID_RECORD'), true)).toBe(false);
    expect(mayAlreadyBeInEffect(refusal('INVALID_RECORD', 413), true)).toBe(false);
    expect(mayAlreadyBeInEffect(refusal('AUTH_FAILED', 403), true)).toBe(false);
    expect(mayAlreadyBeInEffect(refusal('NOT_FOUND', 404), true)).toBe(false);
    expect(mayAlreadyBeInEffect(new Error('boom'), true)).toBe(false);
  });
});
