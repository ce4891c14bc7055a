import { expiryMs } from './expiry';

describe('expiryMs', () => {
  it('reads ISO-8601 and epoch milliseconds, and nothing else', () => {
    expect(expiryMs('2026-11-26T14:00:00Z')).toBe(Date.parse('2026-11-26T14:00:00Z'));
    expect(expiryMs('1795788000000')).toBe(1795788000000);
    expect(expiryMs('')).toBeNull();
    expect(expiryMs(undefined)).toBeNull();
    expect(expiryMs(null)).toBeNull();
    expect(expiryMs('next week')).toBeNull();
  });
});
