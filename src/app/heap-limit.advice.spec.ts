import { heapLimitAdvice } from './heap-limit.advice';

describe('heapLimitAdvice', () => {
  it('says nothing when the limit was set as npm start sets it', () => {
    expect(heapLimitAdvice(512 * 2 ** 20 + 48 * 2 ** 20)).toBeUndefined();
  });

  it('names the flag and the docs when node runs with a large machine default', () => {
    expect(heapLimitAdvice(4144 * 2 ** 20)).toBe(
      'node runs with a heap limit of 4144 MB, so memory may grow to several times what the daemon ' +
        'holds before V8 collects it; start it as npm start does: node --max-old-space-size=512 ' +
        'dist/src/main.js (docs/operations.md, "Memory")',
    );
  });
});
