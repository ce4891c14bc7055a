import { callMatches, readCallMatch } from './call-match';

describe('callMatches', () => {
  it('takes every call with no match, else a call starting with the prefix or one of the prefixes', () => {
    expect(callMatches(null, 'GET /deals')).toBe(true);
    expect(callMatches('POST /tasks', 'POST /tasks/12')).toBe(true);
    expect(callMatches('POST /tasks', 'PUT /tasks/12')).toBe(false);
    expect(callMatches(['POST /deals', 'PUT /deals/'], 'PUT /deals/7')).toBe(true);
    expect(callMatches([], 'PUT /deals/7')).toBe(false);
  });
});

describe('readCallMatch', () => {
  it('takes null, a string or strings, and names what else it was given', () => {
    expect(readCallMatch(null)).toEqual({ match: null });
    expect(readCallMatch(['POST /a', 'PUT /b'])).toEqual({ match: ['POST /a', 'PUT /b'] });
    expect(readCallMatch(['POST /a', 3])).toEqual({
      error: 'match must be a string, an array of strings, or null',
    });
    expect(readCallMatch({ path: '/a' })).toHaveProperty('error');
  });
});
