import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RECOMMENDED_HEAP_MB, heapLimitAdvice } from './heap-limit.advice';

describe('heapLimitAdvice', () => {
  it('says nothing when the limit was set as npm start sets it', () => {
    expect(heapLimitAdvice(512 * 2 ** 20 + 48 * 2 ** 20)).toBeUndefined();
  });

  it('names the flag and the docs when node runs with a large machine default', () => {
    expect(heapLimitAdvice(4144 * 2 ** 20)).toBe(
      'node runs with a heap limit of 4144 MB, so memory may grow to several times what the daemon ' +
        'holds before V8 collects it; start it as npm run start:daemon does: node --max-old-space-size=512 ' +
        'dist/bin/daemon.js (docs/operations.md, "Memory")',
    );
  });
});

describe('RECOMMENDED_HEAP_MB', () => {
  it('is the heap limit npm start gives the embedded demo and start:daemon the daemon alone', () => {
    const pkg = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(pkg.scripts.start).toContain(
      `node --max-old-space-size=${RECOMMENDED_HEAP_MB} dist/bin/embedded.js`,
    );
    expect(pkg.scripts['start:daemon']).toContain(
      `node --max-old-space-size=${RECOMMENDED_HEAP_MB} dist/bin/daemon.js`,
    );
  });

  // npm passes a SIGTERM only to the shell running the script; a shell that ran a build first waits
  // on node as its child and dies alone, leaving the daemon running without its listeners' owner
  // knowing (a supervisor's stop of `npm start`). `exec` makes node the shell's own process.
  it('gives the long-running processes a script starts after a build the signals npm passes on', () => {
    const pkg = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    for (const name of ['start', 'sandbox'])
      expect(pkg.scripts[name]).toMatch(/^npm run build && exec node /);
  });
});
