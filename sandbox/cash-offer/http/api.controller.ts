import {
  Body,
  Controller,
  Get,
  HttpCode,
  Param,
  Patch,
  Post,
  UseGuards,
  UseInterceptors,
} from '@nestjs/common';
import { WebhookConfig } from '../../../src/cash-offer/schema';
import { MarketplaceService } from '../marketplace.service';
import { OfferRequestService } from '../offer-request.service';
import { OfferService } from '../offer.service';
import { notFound, readBody } from '../sandbox.errors';
import { SandboxStore } from '../sandbox.store';
import { SandboxAccount } from '../sandbox.types';
import { prelimCounts } from '../simulated-buyers';
import { ApiCallInterceptor } from './api-call.interceptor';
import { ApiKeyGuard } from './api-key.guard';
import { ExpirySweepInterceptor } from './expiry-sweep.interceptor';
import { JsonBodyInterceptor } from './json-body.interceptor';
import { Caller, SearchParams } from './sandbox.request';

// Every endpoint of the spec, under /api/v2, with the status codes of docs/spec-decisions.md. The
// services validate each body against its wire class (src/cash-offer/schema), after their own
// role checks.
@Controller('api/v2')
@UseGuards(ApiKeyGuard)
@UseInterceptors(ApiCallInterceptor, JsonBodyInterceptor, ExpirySweepInterceptor)
export class ApiController {
  constructor(
    private readonly store: SandboxStore,
    private readonly requests: OfferRequestService,
    private readonly offers: OfferService,
    private readonly marketplace: MarketplaceService,
  ) {}

  @Post('offer-requests')
  @HttpCode(201)
  createOfferRequest(@Caller() caller: SandboxAccount, @Body() body: unknown) {
    return this.requests.create(caller, body);
  }

  @Post('offer-requests/prelim')
  @HttpCode(200)
  prelim(@Body() body: unknown) {
    return prelimCounts(body);
  }

  @Patch('offer-requests/:id')
  @HttpCode(204)
  updateOfferRequest(@Caller() caller: SandboxAccount, @Param('id') id: string, @Body() body: unknown): void {
    this.requests.update(caller, id, body);
  }

  @Patch('offer-requests')
  @HttpCode(204)
  addMedia(@Caller() caller: SandboxAccount, @Body() body: unknown): void {
    this.requests.addMedia(caller, body);
  }

  @Get('active-offer-requests')
  @HttpCode(200)
  activeOfferRequests(@Caller() caller: SandboxAccount, @SearchParams() query: URLSearchParams) {
    return this.marketplace.activePage(caller, query);
  }

  @Get('offers')
  @HttpCode(200)
  listOffers(@Caller() caller: SandboxAccount, @SearchParams() query: URLSearchParams) {
    return this.offers.list(caller, query);
  }

  @Patch('offers')
  @HttpCode(200)
  decideOffer(@Caller() caller: SandboxAccount, @Body() body: unknown) {
    return this.offers.decide(caller, body);
  }

  @Post('counter-offers')
  @HttpCode(201)
  counterOffer(@Caller() caller: SandboxAccount, @Body() body: unknown) {
    return this.offers.counter(caller, body);
  }

  @Post('wh')
  @HttpCode(201)
  registerWebhook(@Caller() caller: SandboxAccount, @Body() body: unknown) {
    const { url } = readBody(WebhookConfig, body);
    this.store.webhookUrls.set(caller.key, url);
    return { url };
  }

  @Patch('wh')
  @HttpCode(200)
  updateWebhook(@Caller() caller: SandboxAccount, @Body() body: unknown) {
    const { url } = readBody(WebhookConfig, body);
    if (!this.store.webhookUrls.has(caller.key))
      throw notFound('no webhook URL is registered for this account yet; register one with POST /wh');
    this.store.webhookUrls.set(caller.key, url);
    return { url };
  }

  @Post('buyer/lead')
  @HttpCode(201)
  buyerLead(@Caller() caller: SandboxAccount, @Body() body: unknown) {
    return this.marketplace.buyerLead(caller, body);
  }

  @Post('push-to-marketplace')
  @HttpCode(200)
  pushToMarketplace(@Caller() caller: SandboxAccount, @Body() body: unknown) {
    return this.marketplace.push(caller, body);
  }
}
