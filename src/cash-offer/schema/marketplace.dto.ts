import { WireField, WireObject } from './wire-field.decorator';

const hasText = (v: unknown): boolean => typeof v === 'string' && v !== '';

// Buyer leads, the push to the marketplace, webhook registration and the error object.

@WireObject('is not a property_address field the service knows')
export class BuyerLeadPropertyAddress {
  @WireField({ type: 'integer', min: 1, required: true })
  offer_request_id: number;
  @WireField({ type: 'integer', min: 1 })
  inventory_property_id?: number;
}

// POST /buyer/lead: a lead needs a way to reach the buyer, primary_email or primary_phone
// (spec-decisions.md).
@WireObject('is not a buyer lead field the service knows')
export class BuyerLeadBody {
  @WireField({ type: 'string', maxLength: 100, required: true })
  first_name: string;
  @WireField({ type: 'string', maxLength: 100, required: true })
  last_name: string;
  @WireField({
    type: 'email',
    maxLength: 254,
    requiredUnless: {
      test: (lead) => hasText(lead.primary_phone),
      message: '{path} or primary_phone is required',
    },
  })
  primary_email?: string;
  @WireField({ type: 'string', maxLength: 32 })
  primary_phone?: string;
  @WireField({ type: 'nested', nested: () => BuyerLeadPropertyAddress, required: true })
  property_address: BuyerLeadPropertyAddress;
}

@WireObject('is not a buyer lead field the service knows')
export class BuyerLead {
  @WireField({ type: 'datetime', required: true })
  created_at: string;
  @WireField({ type: 'string', required: true })
  lead_id: string;
  @WireField({ type: 'string', required: true })
  first_name: string;
  @WireField({ type: 'string', required: true })
  last_name: string;
  @WireField({ type: 'string' })
  primary_email?: string;
  @WireField({ type: 'string' })
  primary_phone?: string;
  @WireField({ type: 'string', required: true })
  api_partner_user_id: string;
  @WireField({ type: 'integer', required: true })
  inventory_property_id: number;
  @WireField({ type: 'integer', required: true })
  offer_request_id: number;
}

@WireObject('is not a push-to-marketplace field the service knows')
export class PushRequest {
  @WireField({ type: 'integer', min: 1, required: true })
  inventory_property_id: number;
  @WireField({ type: 'datetime', nullable: true })
  expiration_date?: string | null;
}

@WireObject('is not part of a push to the marketplace')
export class PushToMarketplaceBody {
  @WireField({ type: 'nested', nested: () => PushRequest, required: true })
  request: PushRequest;
}

@WireObject('is not part of a push answer')
export class PushToMarketplaceResult {
  @WireField({ type: 'boolean', required: true })
  success: boolean;
  @WireField({ type: 'string', required: true })
  message: string;
  @WireField({ type: 'integer', required: true })
  inventory_property_id: number;
}

// POST and PATCH /wh.
@WireObject('is not a webhook configuration field the service knows')
export class WebhookConfig {
  @WireField({ type: 'url', maxLength: 2048, required: true })
  url: string;
}

// The error object of every failed call; `error` repeats the HTTP status (spec-decisions.md). Its
// OpenAPI name is "Error" (wire.openapi.ts).
@WireObject('is not part of the error object')
export class ServiceErrorBody {
  @WireField({ type: 'integer', required: true })
  error: number;
  @WireField({ type: 'string', required: true })
  message: string;
}
