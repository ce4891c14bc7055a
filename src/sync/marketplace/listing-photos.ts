// Signed photo URLs change on every read (new expiry and signature) but name the same photo.
// The identity is the URL without its query string; it goes into the content hash, the
// signed URLs themselves never do.
export function photoIdentity(url: string): string {
  const q = url.indexOf('?');
  const h = url.indexOf('#');
  const end = Math.min(q === -1 ? url.length : q, h === -1 ? url.length : h);
  return url.slice(0, end);
}

export function photoIdentities(media: readonly unknown[] | undefined): string[] {
  return (media ?? []).filter((m): m is string => typeof m === 'string' && m !== '').map(photoIdentity);
}

// One link per line: the text property is readable in the CRM and each line is clickable.
export function photoLinksText(media: readonly unknown[] | undefined): string | null {
  const links = (media ?? []).filter((m): m is string => typeof m === 'string' && m !== '');
  return links.length === 0 ? null : links.join('\n');
}
