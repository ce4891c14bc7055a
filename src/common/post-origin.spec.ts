import { crossSitePost } from './post-origin';

describe('crossSitePost', () => {
  const host = '127.0.0.1:3000';
  it.each([
    ['no browser headers (curl, Prometheus)', {}, false],
    ['same origin', { origin: 'http://127.0.0.1:3000' }, false],
    ['same origin over TLS', { origin: 'https://127.0.0.1:3000' }, false],
    ['Sec-Fetch-Site same-origin', { 'sec-fetch-site': 'same-origin' }, false],
    ['Origin: null', { origin: 'null' }, true],
    ['a foreign origin', { origin: 'http://evil.example' }, true],
    ['another port', { origin: 'http://127.0.0.1:3001' }, true],
    ['Sec-Fetch-Site cross-site', { 'sec-fetch-site': 'cross-site' }, true],
    ['not a URL', { origin: '::::' }, true],
  ])('%s', (_name, headers, refused) => {
    expect(crossSitePost({ host, ...headers }) !== undefined).toBe(refused);
  });

  it('refuses its own origin when the host is not one of the listener names', () => {
    expect(crossSitePost({ host: 'evil.example', origin: 'http://evil.example' }, () => false)).toBeDefined();
  });
});
