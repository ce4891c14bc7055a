// Lower case, single spaces, punctuation dropped; street, unit, city, state and postal code
// (or the unparsed form) so "12 Main St., Apt 4" and "12 main st apt 4" are one listing.
export function normalisedAddress(property: Record<string, unknown>): string | undefined {
  const text = (name: string): string => {
    const value = property[name];
    return typeof value === 'string' || typeof value === 'number' ? String(value) : '';
  };
  const street =
    [text('StreetNumber'), text('StreetDirPrefix'), text('StreetName'), text('StreetSuffix')]
      .filter((p) => p !== '')
      .join(' ') || text('UnparsedAddress');
  if (street === '') return undefined;
  const parts = [
    street,
    text('UnitNumber'),
    text('PostalCity') || text('City'),
    text('StateOrProvince'),
    text('PostalCode').slice(0, 5),
  ];
  const normalised = parts
    .map((p) =>
      p
        .toLowerCase()
        .replace(/[^a-z0-9 ]+/g, ' ')
        .replace(/\s+/g, ' ')
        .trim(),
    )
    .filter((p) => p !== '')
    .join('|');
  return normalised === '' ? undefined : normalised;
}
