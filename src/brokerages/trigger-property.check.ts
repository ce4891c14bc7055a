import type { CrmPropertyLookup } from '../crm';
import type { ListingsPipelineConfig } from '../config/brokerage-config.schema';
import { accountOf } from './listing-pipeline.check';
import { listingTriggerProperty } from './listing-trigger';

const TRIGGER = 'crm.pipelines.listings.triggerProperty';

// Up to this many of the account's custom deal properties are named in the message; more would bury
// the sentence (a HubSpot portal can have hundreds). All of them stay in `existing`.
const NAMED_AT_MOST = 10;

// The trigger property of a brokerage file, checked against the CRM's deal properties.
export interface TriggerPropertyFinding {
  // 'warning': a property setup-crm creates and has not yet (expected before the first setup-crm).
  severity: 'problem' | 'warning';
  path: string;
  id: string;
  message: string;
  existing: { id: string; label: string }[];
}

// A trigger property the deals do not have passes every offline check, and then no deal is ever
// flagged: said here, with the account's custom deal properties when they are few. One setup-crm
// creates (`setupCreates`) is only a warning, since validate-config --online comes before setup-crm
// on a new account.
export function triggerPropertyFinding(
  listings: ListingsPipelineConfig,
  lookup: CrmPropertyLookup,
  crmKind: string,
  brokerageId: string,
  setupCreates: ReadonlySet<string>,
): TriggerPropertyFinding | undefined {
  const name = listingTriggerProperty(listings);
  if (name === undefined || lookup.exists) return undefined;
  const existing = lookup.custom.map((p) => ({ id: p.name, label: p.label }));
  const asNamed = lookup.crmName === name ? `'${name}'` : `'${name}' (field ${lookup.crmName})`;
  const what =
    listings.triggerProperty === undefined
      ? `is not set (nor triggerStageId), so deals are flagged by ${asNamed}, which`
      : asNamed;
  const account = accountOf(crmKind);
  if (setupCreates.has(name))
    return {
      severity: 'warning',
      path: TRIGGER,
      id: name,
      message: `${what} is not a deal property in ${account} yet: setup-crm creates it (npm run cli -- setup-crm --brokerage ${brokerageId})`,
      existing,
    };
  return {
    severity: 'problem',
    path: TRIGGER,
    id: name,
    message: `${what} is not a deal property in ${account}; ${customProperties(existing)}`,
    existing,
  };
}

function customProperties(existing: { id: string; label: string }[]): string {
  if (existing.length === 0) return 'it has no custom deal properties';
  if (existing.length > NAMED_AT_MOST)
    return `it has ${existing.length} custom deal properties (--json lists them)`;
  return `its custom deal properties are: ${existing.map((p) => `${p.id} (${p.label})`).join(', ')}`;
}
