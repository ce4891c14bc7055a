import { FieldTable, FieldViolation, isPlainObject, validateFields } from '../../cash-offer/schema';

const int = { type: 'integer' } as const;

// The analyst assumption item of the spec; the shared schema has no table for it because only
// buyers send it and the daemon never does.
export const ASSUMPTION_FIELDS: FieldTable = {
  assumption_id: int,
  created_at: { type: 'datetime' },
  inventory_property_id: int,
  ltr_monthly_rent: int,
  ltr_annual_rent_increase: { type: 'number' },
  ltr_arv: int,
  ltr_renovation_cost: int,
  str_season_1_daily_rate: int,
  str_season_2_daily_rate: int,
  str_season_3_daily_rate: int,
  str_season_4_daily_rate: int,
  str_arv: int,
  str_renovation_cost: int,
  rr_weekly_rent_per_room: int,
  rr_arv: int,
  rr_beds: int,
  rr_baths: int,
  rr_renovation_cost: int,
  ff_arv: int,
  ff_renovation_cost: int,
  property_annual_tax: int,
  property_annual_hoa: int,
  reno_items: { type: 'string-array' },
  fmv: int,
};

export function validateAssumptions(value: unknown): FieldViolation[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) return [{ field: 'assumptions', message: 'assumptions must be a list' }];
  return value.flatMap((item, i) => {
    const path = `assumptions[${i}]`;
    if (!isPlainObject(item)) return [{ field: path, message: `${path} must be an object` }];
    const { reno_items: renoItems, ...rest } = item;
    const violations = validateFields(path, rest, ASSUMPTION_FIELDS, {
      what: 'an assumption field',
      rejectUnknown: true,
    });
    // reno_items is an array of objects whose structure the spec does not show.
    if (renoItems !== undefined && (!Array.isArray(renoItems) || !renoItems.every(isPlainObject)))
      violations.push({
        field: `${path}.reno_items`,
        message: `${path}.reno_items must be a list of objects`,
      });
    return violations;
  });
}
