import { jsonNestingDepth } from './json-nesting';

describe('jsonNestingDepth', () => {
  it('counts arrays and objects, not brackets inside strings', () => {
    expect(jsonNestingDepth('1')).toBe(0);
    expect(jsonNestingDepth('{"a":[1,{"b":2}]}')).toBe(3);
    expect(jsonNestingDepth('{"a":"[[[{{{\\"[["}')).toBe(1);
  });

  it('stops as soon as the limit is passed, even on 60,000 levels', () => {
    const deep = '['.repeat(60_000) + ']'.repeat(60_000);
    expect(jsonNestingDepth(deep, 32)).toBe(33);
    expect(jsonNestingDepth(deep)).toBe(60_000);
  });
});
