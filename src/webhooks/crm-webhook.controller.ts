import {
  BadRequestException,
  Controller,
  Headers,
  HttpCode,
  Param,
  Post,
  Req,
  UnauthorizedException,
  UnsupportedMediaTypeException,
} from '@nestjs/common';
import type { Request } from 'express';
import { FUB_SIGNATURE_HEADER } from '../crm/followupboss';
import { HUBSPOT_SIGNATURE_V3_HEADER, HUBSPOT_TIMESTAMP_HEADER } from '../crm/hubspot';
import { CrmWebhookIntakeService } from './crm-webhook-intake.service';
import { HubSpotWebhookIntakeService } from './hubspot-webhook-intake.service';
import { isJsonContentType } from './json-content-type';

// CRM change notifications, on the webhook listener beside the Cash Offer service's route. The raw
// body (size-limited, see configureHttpBodyParsing) is what the signature covers.
@Controller('webhooks/crm')
export class CrmWebhookController {
  constructor(
    private readonly intake: CrmWebhookIntakeService,
    private readonly hubSpotIntake: HubSpotWebhookIntakeService,
  ) {}

  @Post('followupboss/:brokerageId')
  @HttpCode(200)
  async followUpBoss(
    @Param('brokerageId') brokerageId: string,
    @Headers(FUB_SIGNATURE_HEADER) signature: string | undefined,
    @Req() req: Request,
  ): Promise<{ received: true; result: string }> {
    const contentType = req.headers['content-type'];
    if (!isJsonContentType(contentType)) {
      this.intake.refuseMediaType(brokerageId, 'followupboss');
      throw new UnsupportedMediaTypeException('the webhook listener takes application/json only');
    }
    const body: unknown = req.body;
    const raw = Buffer.isBuffer(body) ? body : Buffer.alloc(0);
    const outcome = await this.intake.receiveFollowUpBoss(brokerageId, raw, signature);
    if (outcome.status === 401) throw new UnauthorizedException('the FUB-Signature does not verify');
    if (outcome.status === 400) throw new BadRequestException(outcome.reason);
    return { received: true, result: outcome.result };
  }

  // HubSpot's batches of change events, signed v3 (X-HubSpot-Signature-v3 over method, URI, body
  // and X-HubSpot-Request-Timestamp with the app's client secret).
  @Post('hubspot/:brokerageId')
  @HttpCode(200)
  async hubSpot(
    @Param('brokerageId') brokerageId: string,
    @Headers(HUBSPOT_SIGNATURE_V3_HEADER) signature: string | undefined,
    @Headers(HUBSPOT_TIMESTAMP_HEADER) timestamp: string | undefined,
    @Req() req: Request,
  ): Promise<{ received: true; result: string }> {
    if (!isJsonContentType(req.headers['content-type'])) {
      this.intake.refuseMediaType(brokerageId, 'hubspot');
      throw new UnsupportedMediaTypeException('the webhook listener takes application/json only');
    }
    const body: unknown = req.body;
    const outcome = await this.hubSpotIntake.receive(brokerageId, {
      method: req.method,
      originalUrl: req.originalUrl,
      rawBody: Buffer.isBuffer(body) ? body : Buffer.alloc(0),
      signature,
      timestamp,
    });
    if (outcome.status === 401)
      throw new UnauthorizedException(
        'the X-HubSpot-Signature-v3 does not verify, or its timestamp is stale',
      );
    if (outcome.status === 400) throw new BadRequestException(outcome.reason);
    return { received: true, result: outcome.result };
  }
}
