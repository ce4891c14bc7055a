import { slashRedirectTarget } from './slash-redirect';

const BASE = 'https://api.example.com/api/v2';

describe('slashRedirectTarget: only a redirect to the same resource with or without a trailing slash', () => {
  it.each([
    ['/offers', 'PATCH', 307, 'https://api.example.com/api/v2/offers/', '/offers/'],
    ['/offers', 'PATCH', 308, '/api/v2/offers/', '/offers/'],
    ['/offer-requests/', 'PATCH', 307, '/api/v2/offer-requests', '/offer-requests'],
    ['/offers?limit=5', 'GET', 301, '/api/v2/offers/?limit=5', '/offers/'],
    ['/counter-offers', 'POST', 308, 'http://api.example.com:443/api/v2/counter-offers/', undefined],
  ])('%s %s answered %i to %s: %s', (path, method, status, location, expected) => {
    expect(slashRedirectTarget(BASE, path, method, status, location)).toBe(expected);
  });

  it.each([
    ['another host', '/offers', 'PATCH', 307, 'https://evil.example.net/api/v2/offers/'],
    ['another path', '/offers', 'PATCH', 307, '/api/v2/login'],
    ['another query', '/offers?limit=5', 'GET', 307, '/api/v2/offers/?limit=500'],
    ['a 302 on a PATCH (it would become a GET)', '/offers', 'PATCH', 302, '/api/v2/offers/'],
    ['out of the base path', '/offers', 'PATCH', 307, '/offers/'],
    ['no location', '/offers', 'PATCH', 307, undefined],
    ['the same path (a loop)', '/offers', 'PATCH', 307, '/api/v2/offers'],
    ['not a redirect', '/offers', 'PATCH', 200, '/api/v2/offers/'],
  ])('not followed: %s', (_why, path, method, status, location) => {
    expect(slashRedirectTarget(BASE, path, method, status, location)).toBeUndefined();
  });
});
