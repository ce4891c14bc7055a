import { getHeapStatistics } from 'node:v8';

// The heap limit `npm start` and `npm run start:daemon` give the daemon (package.json). Above about 2 GB V8 lets garbage
// reach several times the live heap between full collections (docs/operations.md, "Memory").
export const RECOMMENDED_HEAP_MB = 512;
const GENEROUS_HEAP_MB = 2048;

// A warning for the operator when the daemon runs with V8's default heap limit of a large
// machine, or undefined when the limit was set.
export function heapLimitAdvice(
  heapLimitBytes: number = getHeapStatistics().heap_size_limit,
): string | undefined {
  const limitMb = Math.round(heapLimitBytes / 2 ** 20);
  if (limitMb < GENEROUS_HEAP_MB) return undefined;
  return (
    `node runs with a heap limit of ${limitMb} MB, so memory may grow to several times what the daemon ` +
    `holds before V8 collects it; start it as npm run start:daemon does: node --max-old-space-size=${RECOMMENDED_HEAP_MB} ` +
    `dist/bin/daemon.js (docs/operations.md, "Memory")`
  );
}
