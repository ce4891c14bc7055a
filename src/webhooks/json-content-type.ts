// A CRM's webhook listener takes JSON only (HubSpot and Follow Up Boss declare it): a body declared
// as anything else (text/plain, a form) is refused with 415 before it is read as an event. A
// delivery that declares no type at all is read as JSON.
export function isJsonContentType(header: string | undefined): boolean {
  if (header === undefined || header.trim() === '') return true;
  const type = header.split(';')[0].trim().toLowerCase();
  return type === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(type);
}

// The Cash Offer service's deliveries: "an HTTP POST with a JSON body", with the header not shown. A
// sender may declare its JSON text as text/plain (fetch() does for a string body, by the Fetch
// standard) or as a form (PHP's curl does for a string body): the body decides, and one that is not
// JSON is refused and kept as a dead letter. Only a type that cannot frame JSON text is refused
// unread (415): a multipart form, an image, audio, video or a font.
export function mayCarryJsonText(header: string | undefined): boolean {
  if (header === undefined || header.trim() === '') return true;
  const type = header.split(';')[0].trim().toLowerCase();
  return !/^(multipart|image|audio|video|font)\//.test(type);
}
