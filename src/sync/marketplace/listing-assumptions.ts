import type { Assumption } from '../../cash-offer/schema';

// Analyst assumptions (buyers only) as readable lines: one per assumption, strategies in the
// spec's order (long-term rental, short-term rental, rent by the room, fix and flip).
const GROUPS: { label: string; fields: [keyof Assumption, string][] }[] = [
  { label: 'Value', fields: [['fmv', 'fair market value']] },
  {
    label: 'Long-term rental',
    fields: [
      ['ltr_monthly_rent', 'rent/month'],
      ['ltr_annual_rent_increase', 'annual rent increase'],
      ['ltr_arv', 'ARV'],
      ['ltr_renovation_cost', 'renovation'],
    ],
  },
  {
    label: 'Short-term rental',
    fields: [
      ['str_season_1_daily_rate', 'season 1 daily rate'],
      ['str_season_2_daily_rate', 'season 2 daily rate'],
      ['str_season_3_daily_rate', 'season 3 daily rate'],
      ['str_season_4_daily_rate', 'season 4 daily rate'],
      ['str_arv', 'ARV'],
      ['str_renovation_cost', 'renovation'],
    ],
  },
  {
    label: 'Rent by the room',
    fields: [
      ['rr_weekly_rent_per_room', 'rent/room/week'],
      ['rr_beds', 'beds'],
      ['rr_baths', 'baths'],
      ['rr_arv', 'ARV'],
      ['rr_renovation_cost', 'renovation'],
    ],
  },
  {
    label: 'Fix and flip',
    fields: [
      ['ff_arv', 'ARV'],
      ['ff_renovation_cost', 'renovation'],
    ],
  },
  {
    label: 'Carrying costs',
    fields: [
      ['property_annual_tax', 'tax/year'],
      ['property_annual_hoa', 'HOA/year'],
    ],
  },
];

const COUNTS = new Set(['rr_beds', 'rr_baths']);
const PERCENTS = new Set(['ltr_annual_rent_increase']);

export function assumptionsText(assumptions: readonly Assumption[] | undefined): string | null {
  const lines = (assumptions ?? []).map(assumptionLine).filter((l) => l !== '');
  return lines.length === 0 ? null : lines.join('\n');
}

function assumptionLine(a: Assumption): string {
  const groups: string[] = [];
  for (const group of GROUPS) {
    const parts = group.fields
      .filter(([name]) => typeof a[name] === 'number')
      .map(([name, label]) => `${label} ${formatValue(name, a[name] as number)}`);
    if (parts.length > 0) groups.push(`${group.label}: ${parts.join(', ')}`);
  }
  if (Array.isArray(a.reno_items) && a.reno_items.length > 0)
    groups.push(`Renovation items: ${a.reno_items.length}`);
  return groups.join('; ');
}

function formatValue(name: string, value: number): string {
  if (COUNTS.has(name)) return String(value);
  if (PERCENTS.has(name)) return `${value}%`;
  return `$${value.toLocaleString('en-US')}`;
}
