// The port names custom properties in snake_case (cash_offer_request_id); FUB names a custom field
// after its label, `custom` + the label's words run together (label "Close Date" is
// customCloseDate, crm-apis.md B2). So a snake_case name is custom and its FUB name and label
// follow from it; any other name is one of FUB's own fields (name, price, firstName ...).
export function isCustomName(name: string): boolean {
  return name.includes('_');
}

export function fubFieldName(name: string): string {
  if (!isCustomName(name)) return name;
  return `custom${words(name).join('')}`;
}

// The label setup-crm gives a custom field, so FUB derives the name fubFieldName expects.
export function fubFieldLabel(name: string): string {
  return words(name).join(' ');
}

function words(name: string): string[] {
  return name
    .split('_')
    .filter((w) => w !== '')
    .map((w) => w[0].toUpperCase() + w.slice(1));
}
