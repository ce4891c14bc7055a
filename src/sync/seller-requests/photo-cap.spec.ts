import { CashOfferError } from '../../cash-offer';
import { capNamed, fewerPhotos, photoBatches } from './photo-cap';

const refusal = (
  message: string,
  status: number | null = 400,
  code: 'INVALID_RECORD' | 'CONFLICT' = 'INVALID_RECORD',
) =>
  new CashOfferError({
    code,
    operation: 'createOfferRequest',
    message: `createOfferRequest refused: ${message}`,
    ...(status === null ? {} : { status, serviceError: { error: status, message } }),
  });

// A service with a cap of `cap` photos a call, saying so (or not) in its message.
function search(count: number, cap: number, says: (n: number) => string): number[] {
  const tried: number[] = [];
  let n = count;
  for (;;) {
    tried.push(n);
    if (n <= cap) return tried;
    const next = fewerPhotos(refusal(says(n)), n);
    if (next === undefined) return tried;
    n = next;
  }
}

describe('fewerPhotos (the cap search)', () => {
  it('reads a number the message gives beside media, checked by the next answer', () => {
    expect(search(12, 10, (n) => `media has ${n} photos; the service allows 10`)).toEqual([12, 10]);
    expect(search(12, 5, (n) => `media has ${n} photos; the service allows 5`)).toEqual([12, 5]);
    expect(search(50, 3, () => 'too many media items (max 3)')).toEqual([50, 3]);
  });

  it('halves when the message names no number, or a wrong one, until a size is accepted', () => {
    expect(search(12, 5, () => 'media: too many items')).toEqual([12, 6, 3]);
    expect(search(12, 0, () => 'the body was refused')).toEqual([12, 6, 3, 1, 0]);
    // An index, not a cap: tried, refused, and the search goes on below it.
    expect(search(12, 4, (n) => `media[${n - 1}] is refused`)).toEqual([12, 11, 10, 9, 8, 7, 6, 5, 4]);
    expect(search(40, 7, () => 'HTTP 400: media refused')).toEqual([40, 20, 10, 5]);
  });

  it('does not search for a refusal that fewer photos cannot help', () => {
    expect(fewerPhotos(refusal('media has 12 photos', null), 12)).toBeUndefined(); // a local check
    expect(fewerPhotos(refusal('offer request is closed', 409, 'CONFLICT'), 12)).toBeUndefined();
    expect(fewerPhotos(refusal('property.StreetName is too long'), 0)).toBeUndefined();
    expect(fewerPhotos(new Error('socket hang up'), 12)).toBeUndefined();
    expect(fewerPhotos(refusal('StreetName is 57 characters; the service allows 50', 422), 12)).toBe(6);
  });

  it('capNamed reads only numbers below what was tried, only beside media', () => {
    expect(capNamed('media has 12 photos; the service allows 10', 12)).toBe(10);
    expect(capNamed('StreetName allows 10', 12)).toBeUndefined();
    expect(capNamed('media allows 60', 12)).toBeUndefined();
  });
});

describe('photoBatches', () => {
  it('groups the photos that did not fit in the accepted size, at least one a batch', () => {
    const urls = Array.from({ length: 7 }, (_, i) => `u${i}`);
    expect(photoBatches(urls, 5)).toEqual([
      ['u0', 'u1', 'u2', 'u3', 'u4'],
      ['u5', 'u6'],
    ]);
    expect(photoBatches(urls.slice(0, 2), 0)).toEqual([['u0'], ['u1']]);
    expect(photoBatches([], 5)).toEqual([]);
  });
});
