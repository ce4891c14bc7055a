// class-transformer's @Type reads decorator metadata.
import 'reflect-metadata';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsEmail,
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsNumber,
  IsISO8601,
  IsNotEmpty,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  Max,
  Min,
  ValidateNested,
} from 'class-validator';
import { IsCronExpression } from './cron-expression.validator';
import { NotRead } from './not-read.validator';
import { OnlyForCrm } from './only-for-crm.validator';
import { IsStringRecord } from './string-record.validator';

// The shape of one file in CONFIG_DIR. Secrets appear only as environment variable NAMES (`*Env`) or
// paths of files holding them (`*File`, one secret per file, as orchestrators mount them); the loader
// resolves them (brokerage-secrets.ts) so values never sit in the parsed config.

const ENV_NAME = /^[A-Z_][A-Z0-9_]*$/;
const ENV_NAME_MESSAGE = '$property must be the NAME of an environment variable (A-Z, 0-9, _), not its value';
const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;
const REQUIRED = { message: '$property is required' };
const URL_OPTIONS = { require_tld: false, require_protocol: true, protocols: ['http', 'https'] };

// A limit in the operator's words, read as a RateLimit of requestsPerSecond per 1000 ms
// (common/rate-limit.ts perSecond) wherever an adapter or client is built.
export class RateLimitConfig {
  @IsInt()
  @Min(1)
  requestsPerSecond: number;

  // Once documented and never read: the rolling window already lets a whole second's
  // requestsPerSecond go at once, so a file still setting it is told so rather than obeyed in part.
  @NotRead('a limit is requestsPerSecond alone, and up to that many calls may start at once; remove burst')
  burst?: never;
}

export class CashOfferConfig {
  @IsUrl(URL_OPTIONS, { message: '$property must be an http(s) URL such as https://host/api/v2' })
  baseUrl: string;

  // One of apiKeyEnv and apiKeyFile (checked by resolveSecrets).
  @IsOptional()
  @Matches(ENV_NAME, { message: ENV_NAME_MESSAGE })
  apiKeyEnv?: string;

  @IsOptional()
  @IsString()
  @IsNotEmpty()
  apiKeyFile?: string;

  @IsOptional()
  @ValidateNested()
  @Type(() => RateLimitConfig)
  rateLimit?: RateLimitConfig;

  @IsOptional()
  @IsInt()
  @Min(100)
  @Max(120_000)
  timeoutMs?: number;

  // How long a create whose answer was lost is looked for in the service's lists before it counts
  // as never received and is sent again (docs/ledger.md "Unknown outcomes"). The service lists a
  // request once it approves it, so this must exceed the service's approval time.
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(10_080)
  unknownOutcomeWindowMinutes?: number;
}

export const DEFAULT_UNKNOWN_OUTCOME_WINDOW_MINUTES = 60;

export class ListingsPipelineConfig {
  @IsString()
  @IsNotEmpty()
  pipelineId: string;

  @IsOptional()
  @IsString()
  @IsNotEmpty()
  triggerStageId?: string;

  @IsOptional()
  @IsString()
  @IsNotEmpty()
  triggerProperty?: string;
}

export class PipelinesConfig {
  @IsDefined(REQUIRED)
  @ValidateNested()
  @Type(() => ListingsPipelineConfig)
  listings: ListingsPipelineConfig;
}

export class CrmMappingConfig {
  // CRM property name per daemon field; the adapter merges these over its defaults.
  @IsStringRecord()
  overrides: Record<string, string>;
}

export class CrmConfig {
  @IsIn(['hubspot', 'followupboss'])
  kind: 'hubspot' | 'followupboss';

  @IsOptional()
  @IsUrl(URL_OPTIONS, { message: '$property must be an http(s) URL' })
  baseUrl?: string;

  // One of tokenEnv and tokenFile.
  @IsOptional()
  @Matches(ENV_NAME, { message: ENV_NAME_MESSAGE })
  tokenEnv?: string;

  @IsOptional()
  @IsString()
  @IsNotEmpty()
  tokenFile?: string;

  // Follow Up Boss: the registered system (X-System) and the variable holding its X-System-Key.
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  system?: string;

  @IsOptional()
  @Matches(ENV_NAME, { message: ENV_NAME_MESSAGE })
  systemKeyEnv?: string;

  @IsOptional()
  @IsString()
  @IsNotEmpty()
  systemKeyFile?: string;

  // HubSpot: the app's client secret, which signs its change webhooks (X-HubSpot-Signature-v3).
  // Given, the daemon takes HubSpot webhooks on /webhooks/crm/hubspot/<brokerage>.
  @IsOptional()
  @Matches(ENV_NAME, { message: ENV_NAME_MESSAGE })
  clientSecretEnv?: string;

  @IsOptional()
  @IsString()
  @IsNotEmpty()
  clientSecretFile?: string;

  // Follow Up Boss: register webhooks (at start and by setup-crm) so a change in the CRM starts
  // crm-changes at once; polling stays the source of truth. Default true; FUB needs an https
  // webhooks.publicBaseUrl and the system key. HubSpot: `false` refuses its webhooks even with a
  // client secret.
  @IsOptional()
  @IsBoolean()
  changeWebhooks?: boolean;

  @IsOptional()
  @ValidateNested()
  @Type(() => RateLimitConfig)
  rateLimit?: RateLimitConfig;

  // HubSpot: the limit of its search endpoints, apart from rateLimit; default 5 a second, the
  // published "five requests per second per account". The account's other apps share it (an older
  // changelog says 4 a second per token), so an operator may leave them room.
  @IsOptional()
  @OnlyForCrm('hubspot', 'Follow Up Boss has no separate search limit; its calls all count against rateLimit')
  @ValidateNested()
  @Type(() => RateLimitConfig)
  searchRateLimit?: RateLimitConfig;

  // The CRM account's tier, which sets HubSpot's burst limit (100 or 190 per 10 s); unset means
  // the safe 100. An explicit rateLimit wins.
  @IsOptional()
  @IsIn(['free', 'starter', 'professional', 'enterprise', 'api-limit-increase'])
  accountTier?: 'free' | 'starter' | 'professional' | 'enterprise' | 'api-limit-increase';

  @IsOptional()
  @ValidateNested()
  @Type(() => CrmMappingConfig)
  mapping?: CrmMappingConfig;

  @IsDefined(REQUIRED)
  @ValidateNested()
  @Type(() => PipelinesConfig)
  pipelines: PipelinesConfig;

  // Where a person opens a deal in the CRM's own app, `{id}` standing for its id (for HubSpot,
  // https://app.hubspot.com/contacts/<portal id>/record/0-3/{id}); the status page links record errors there.
  @IsOptional()
  @Matches(/^https?:\/\/\S*\{id\}\S*$/, { message: '$property must be an http(s) URL containing {id}' })
  recordUrl?: string;
}

export class WebhooksConfig {
  @IsUrl(URL_OPTIONS, { message: '$property must be an http(s) URL the service can reach' })
  publicBaseUrl: string;

  // One of secretEnv and secretFile.
  @IsOptional()
  @Matches(ENV_NAME, { message: ENV_NAME_MESSAGE })
  secretEnv?: string;

  @IsOptional()
  @IsString()
  @IsNotEmpty()
  secretFile?: string;

  @IsOptional()
  @Matches(ENV_NAME, { message: ENV_NAME_MESSAGE })
  previousSecretEnv?: string;

  @IsOptional()
  @IsString()
  @IsNotEmpty()
  previousSecretFile?: string;

  @IsOptional()
  @IsISO8601({ strict: true }, { message: '$property must be an ISO 8601 date-time' })
  previousSecretValidUntil?: string;
}

export const DEFAULT_SCHEDULES = {
  crmChanges: '*/1 * * * *',
  offersReconcile: '*/5 * * * *',
  marketplace: '*/15 * * * *',
  outboxDrain: '*/10 * * * * *',
  inboxDrain: '*/5 * * * * *',
} as const;

export class SchedulesConfig {
  @IsCronExpression()
  crmChanges: string = DEFAULT_SCHEDULES.crmChanges;

  @IsCronExpression()
  offersReconcile: string = DEFAULT_SCHEDULES.offersReconcile;

  @IsCronExpression()
  marketplace: string = DEFAULT_SCHEDULES.marketplace;

  @IsCronExpression()
  outboxDrain: string = DEFAULT_SCHEDULES.outboxDrain;

  @IsCronExpression()
  inboxDrain: string = DEFAULT_SCHEDULES.inboxDrain;
}

// Who else hears of this brokerage's alerts (docs/operations.md, "Alerts"): besides the daemon's
// channels, mail to these addresses through the daemon's SMTP server (ALERT_SMTP_URL).
export class BrokerageAlertsConfig {
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(20)
  @IsEmail({}, { each: true, message: '$property must hold email addresses, got "$value"' })
  emailTo: string[];
}

// Offer clocks (docs/crm-mapping.md, "Offer clocks"): tasks for the listing agent before an offer
// expires, one for the broker when it is still undecided near the end, the Expired stage after.
export class OfferClocksConfig {
  @IsOptional()
  @IsBoolean()
  enabled: boolean = true;

  // Hours before `offer_expires` at which the agent gets a task, most distant first or in any order.
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(5)
  @IsNumber({}, { each: true, message: '$property must hold numbers of hours, got "$value"' })
  @Min(0.1, { each: true, message: '$property must hold hours of at least 0.1, got "$value"' })
  @Max(720, { each: true, message: '$property must hold hours of at most 720 (30 days), got "$value"' })
  leadHours: number[] = [24, 2];

  // Hours before expiry at which an offer still undecided gets a task for the broker; needs brokerOwnerId.
  @IsOptional()
  @IsNumber({}, { message: '$property must be a number of hours' })
  @Min(0.1)
  @Max(720)
  escalateHours?: number = 1;

  // The CRM user who gets escalations (HubSpot owner id, Follow Up Boss user id). Unset: no escalation.
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  brokerOwnerId?: string;
}

export class BrokerageConfig {
  @Matches(SLUG, { message: '$property must be a slug: lowercase letters, digits and dashes' })
  id: string;

  @IsDefined(REQUIRED)
  @ValidateNested()
  @Type(() => CashOfferConfig)
  cashOffer: CashOfferConfig;

  @IsDefined(REQUIRED)
  @ValidateNested()
  @Type(() => CrmConfig)
  crm: CrmConfig;

  @IsDefined(REQUIRED)
  @ValidateNested()
  @Type(() => WebhooksConfig)
  webhooks: WebhooksConfig;

  @ValidateNested()
  @Type(() => SchedulesConfig)
  schedules: SchedulesConfig = new SchedulesConfig();

  @IsOptional()
  @IsBoolean()
  enabled?: boolean;

  // Marks everything this brokerage sends as a test record (`test: true` on offer requests, their
  // property and counter offers), e.g. while a brokerage is being set up against the real service.
  @IsOptional()
  @IsBoolean()
  testMode?: boolean;

  // Talks to the bundled simulators (the demo): the daemon starts them on the ports of the two base
  // URLs and fills unset secret variables with the simulators' defaults (embedded/).
  @IsOptional()
  @IsBoolean()
  simulated?: boolean;

  @IsOptional()
  @ValidateNested()
  @Type(() => BrokerageAlertsConfig)
  alerts?: BrokerageAlertsConfig;

  @ValidateNested()
  @Type(() => OfferClocksConfig)
  offerClocks: OfferClocksConfig = new OfferClocksConfig();
}
