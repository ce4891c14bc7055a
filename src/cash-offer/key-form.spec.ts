import { mayRefuseTheKey } from './failure.classifier';
import { authorizationHeader, describeKeyForm, otherKeyForm } from './key-form';

describe('key-form', () => {
  it.each([
    ['k-123', 'as-configured', 'k-123'],
    ['k-123', 'other', 'Bearer k-123'],
    ['Bearer k-123', 'as-configured', 'Bearer k-123'],
    ['Bearer k-123', 'other', 'k-123'],
    ['bearer   k-123', 'other', 'k-123'],
  ] as const)('writes %j under %s as %j', (key, form, header) => {
    expect(authorizationHeader(key, form)).toBe(header);
  });

  it('names the form without the key', () => {
    expect(describeKeyForm('k-123', 'as-configured')).toBe('as the key alone');
    expect(describeKeyForm('k-123', 'other')).toBe('"Bearer <key>"');
    expect(otherKeyForm(otherKeyForm('as-configured'))).toBe('as-configured');
  });

  it.each([
    [401, '{"error":401,"message":"no"}', true],
    [403, '{"message":"Forbidden"}', true],
    [400, '{"error":400,"message":"the API key is missing"}', true],
    [422, '{"error":422,"message":"Authorization header malformed"}', true],
    [404, '{"error":404,"message":"unknown credentials"}', true],
    [400, '{"error":400,"message":"offer_id is required"}', false],
    [404, '{"error":404,"message":"offer 3 not found"}', false],
    [409, '{"error":409,"message":"the API key cannot decide a closed offer"}', false],
    [500, 'authentication backend down', false],
    [200, '[]', false],
  ])('%i %s may refuse the key: %s', (status, body, may) => {
    expect(mayRefuseTheKey(status, body)).toBe(may);
  });
});
