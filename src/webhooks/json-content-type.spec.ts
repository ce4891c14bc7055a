import { isJsonContentType, mayCarryJsonText } from './json-content-type';

describe('isJsonContentType', () => {
  it.each([
    ['application/json', true],
    ['application/json; charset=utf-8', true],
    ['Application/JSON', true],
    ['application/vnd.api+json', true],
    [undefined, true],
    ['text/plain', false],
    ['application/x-www-form-urlencoded', false],
    ['multipart/form-data; boundary=x', false],
    ['text/json-ish', false],
  ])('%s -> %s', (header, expected) => {
    expect(isJsonContentType(header)).toBe(expected);
  });
});

describe('mayCarryJsonText (the Cash Offer listener: the body decides)', () => {
  it.each([
    ['application/json', true],
    [undefined, true],
    ['text/plain;charset=UTF-8', true],
    ['application/x-www-form-urlencoded', true],
    ['application/octet-stream', true],
    ['multipart/form-data; boundary=x', false],
    ['image/png', false],
    ['Video/MP4', false],
  ])('%s -> %s', (header, expected) => {
    expect(mayCarryJsonText(header)).toBe(expected);
  });
});
