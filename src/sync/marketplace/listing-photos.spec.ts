import { photoIdentity, photoLinksText } from './listing-photos';

describe('listing photos', () => {
  it('names a photo by its URL without query or fragment', () => {
    expect(photoIdentity('https://h/media/t1?expires=1&sig=x')).toBe('https://h/media/t1');
    expect(photoIdentity('https://h/a.jpg#top')).toBe('https://h/a.jpg');
    expect(photoIdentity('https://h/a.jpg')).toBe('https://h/a.jpg');
  });

  it('writes one link per line and nothing for no photos', () => {
    expect(photoLinksText(['a', '', 'b'])).toBe('a\nb');
    expect(photoLinksText([])).toBeNull();
  });
});
