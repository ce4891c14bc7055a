import { sameListenerPath } from './same-listener-path';

describe('sameListenerPath', () => {
  it('keeps a path of this listener, with its query and anchor', () => {
    expect(sameListenerPath('/console')).toBe('/console');
    expect(sameListenerPath('/console?refresh=10#b-acme')).toBe('/console?refresh=10#b-acme');
  });

  it('falls back to the console when no path is given', () => {
    expect(sameListenerPath(undefined)).toBe('/console');
    expect(sameListenerPath('')).toBe('/console');
    expect(sameListenerPath('console')).toBe('/console');
  });

  // Each of these is another site to a browser reading it as a Location.
  it.each([
    '//evil.example/console',
    '/\\evil.example',
    '/\\/evil.example',
    '/\t/evil.example',
    '/\n/evil.example',
    'https://evil.example/',
    'javascript:alert(1)',
  ])('refuses %j', (next) => {
    expect(sameListenerPath(next)).toBe('/console');
  });
});
