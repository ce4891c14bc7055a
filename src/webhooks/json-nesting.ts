// How deep a JSON text nests, measured on the text itself without parsing or recursion, so that a
// body built to exhaust the stack (60,000 nested arrays fit in 120 KB) is refused before anything
// recursive (JSON.parse, canonicalJson, the validators) touches it.

// Real events are flat objects; 32 levels leaves room for any nested detail the service may add.
export const MAX_WEBHOOK_JSON_DEPTH = 32;

// The deepest nesting of `[` and `{` outside strings, stopping early once past `limit`.
export function jsonNestingDepth(text: string, limit = Infinity): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      depth++;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > limit) return deepest;
      }
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) depth--;
  }
  return deepest;
}
