import {
  Controller,
  HttpCode,
  NotFoundException,
  BadRequestException,
  PayloadTooLargeException,
  UnsupportedMediaTypeException,
  Param,
  Patch,
  Post,
  Put,
  Req,
} from '@nestjs/common';
import type { Request } from 'express';
import { mayCarryJsonText } from './json-content-type';
import { OversizeBody } from './webhook-body';
import { WebhookIntakeService } from './webhook-intake.service';

// Thin: verify, store, answer. The raw body parser for this route is set up by
// configureWebhookBodyParsing, so malformed JSON reaches intake and is kept for the operator.
@Controller('webhooks')
export class WebhookController {
  constructor(private readonly intake: WebhookIntakeService) {}

  // The spec's "UPDATE call" to the callback may be a PUT or a PATCH (its method is not shown): each
  // is taken as the POST of an event, the UPDATE when it names none (event-name.ts).
  @Put(':brokerageId/:secret')
  @HttpCode(200)
  receivePut(
    @Param('brokerageId') brokerageId: string,
    @Param('secret') secret: string,
    @Req() req: Request,
  ): Promise<{ received: true; duplicate: boolean }> {
    return this.receive(brokerageId, secret, req);
  }

  @Patch(':brokerageId/:secret')
  @HttpCode(200)
  receivePatch(
    @Param('brokerageId') brokerageId: string,
    @Param('secret') secret: string,
    @Req() req: Request,
  ): Promise<{ received: true; duplicate: boolean }> {
    return this.receive(brokerageId, secret, req);
  }

  @Post(':brokerageId/:secret')
  @HttpCode(200)
  async receive(
    @Param('brokerageId') brokerageId: string,
    @Param('secret') secret: string,
    @Req() req: Request,
  ): Promise<{ received: true; duplicate: boolean }> {
    const body: unknown = req.body;
    if (body instanceof OversizeBody) {
      const outcome = await this.intake.refuseOversize(brokerageId, secret, body);
      if (outcome.status === 404) throw new NotFoundException();
      throw new PayloadTooLargeException(outcome.reason);
    }
    const contentType = req.headers['content-type'];
    if (!mayCarryJsonText(contentType)) {
      const refused = this.intake.refuseMediaType(brokerageId, secret, contentType ?? '');
      if (refused.status === 404) throw new NotFoundException();
      throw new UnsupportedMediaTypeException(refused.reason);
    }
    const raw = Buffer.isBuffer(body) ? body : Buffer.alloc(0);
    const outcome = await this.intake.receive(brokerageId, secret, raw, req.method);
    if (outcome.status === 404) throw new NotFoundException();
    if (outcome.status === 400) throw new BadRequestException(outcome.reason);
    return { received: true, duplicate: outcome.duplicate };
  }
}
