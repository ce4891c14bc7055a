// JSON with object keys sorted at every depth, so equal content always serialises (and hashes)
// alike, whatever order its keys were written in. Recursive, so callers bound the depth of what they
// pass (webhook bodies are checked by jsonNestingDepth first); past MAX_CANONICAL_DEPTH it throws a
// RangeError that names the limit rather than overflowing the stack.
export const MAX_CANONICAL_DEPTH = 256;

export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value, 0));
}

function sortKeys(value: unknown, depth: number): unknown {
  if (depth > MAX_CANONICAL_DEPTH)
    throw new RangeError(`canonicalJson: the value nests deeper than ${MAX_CANONICAL_DEPTH} levels`);
  if (Array.isArray(value)) return value.map((item: unknown) => sortKeys(item, depth + 1));
  if (value !== null && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(obj)
        .sort()
        .map((key) => [key, sortKeys(obj[key], depth + 1)]),
    );
  }
  return value;
}
