import { hubSpotVendorProfile } from './hubspot-vendor.profile';

describe('hubSpotVendorProfile', () => {
  const profile = hubSpotVendorProfile(
    new Map<string, 'date' | 'datetime'>([
      ['expires', 'datetime'],
      ['listed_on', 'date'],
    ]),
  );

  it('names the deal fields that play the name and amount roles', () => {
    expect(profile.roles.deal).toEqual({ 'crm:name': 'dealname', 'crm:amount': 'amount' });
  });

  it('hands epoch-millisecond dates over as ISO-8601 and leaves everything else alone', () => {
    const read = profile.readValue!;
    expect(read('deal', 'expires', '1767225600000')).toBe('2026-01-01T00:00:00.000Z');
    expect(read('deal', 'listed_on', '1767225600000')).toBe('2026-01-01');
    expect(read('deal', 'expires', '2026-01-01T10:00:00Z')).toBe('2026-01-01T10:00:00Z');
    expect(read('deal', 'amount', '1767225600000')).toBe('1767225600000');
    expect(read('deal', 'expires', null)).toBeNull();
  });
});
