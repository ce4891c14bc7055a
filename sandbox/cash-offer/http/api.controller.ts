import {
  Body,
  Controller,
  Get,
  HttpCode,
  Param,
  Patch,
  Post,
  Res,
  UseGuards,
  UseInterceptors,
} from '@nestjs/common';
import type { Response } from 'express';
import { WebhookConfig, type Offer, type OfferRequestRecord } from '../../../src/cash-offer/schema';
import { MarketplaceService } from '../marketplace.service';
import { OfferRequestService } from '../offer-request.service';
import { OfferService } from '../offer.service';
import { ApiError, conflict, notFound, readBody } from '../sandbox.errors';
import { SandboxStore } from '../sandbox.store';
import { SandboxAccount } from '../sandbox.types';
import { prelimCounts } from '../simulated-buyers';
import { SpecReadings } from '../spec-readings';
import {
  createAnswer,
  expiredOfferShown,
  withdrawnOfferShown,
  offersQueryUnder,
  activeQueryUnder,
  activeSortUnder,
  activeItemShown,
  pageAfterLast,
  prelimAnswer,
  readCounterAnswer,
} from '../spec-readings.answers';
import { ApiCallInterceptor } from './api-call.interceptor';
import { ApiKeyGuard } from './api-key.guard';
import { ExpirySweepInterceptor } from './expiry-sweep.interceptor';
import { JsonBodyInterceptor } from './json-body.interceptor';
import { TimestampFormatInterceptor } from './timestamp-format.interceptor';
import { Caller, SearchParams } from './sandbox.request';

// Every endpoint of the spec, under /api/v2, with the status codes of docs/spec-decisions.md. The
// services validate each body against its wire class (src/cash-offer/schema), after their own
// role checks.
@Controller('api/v2')
@UseGuards(ApiKeyGuard)
@UseInterceptors(ApiCallInterceptor, JsonBodyInterceptor, ExpirySweepInterceptor, TimestampFormatInterceptor)
export class ApiController {
  constructor(
    private readonly store: SandboxStore,
    private readonly requests: OfferRequestService,
    private readonly offers: OfferService,
    private readonly marketplace: MarketplaceService,
    private readonly readings: SpecReadings,
  ) {}

  // How an offer is shown under the readings of `countered` (the spec has no such status), of the
  // counter's id on it, of its decision time and of the fields the list form carries.
  private shown(offer: Offer): Offer {
    const { counteredOfferListedAs, offerNamesCounter, offerDecidedAt, counterOfferFlag, offerListShape } =
      this.readings.current;
    const listed = offerListShape === 'without-webhook-fields' ? withoutWebhookFields(offer) : offer;
    const named = offerNamesCounter === 'unnamed' ? withoutCounterId(listed) : listed;
    const flagged = counterOfferFlag === 'null' ? { ...named, offer_is_counter_offer: null } : named;
    const dated = offerDecidedAt === 'null' ? { ...flagged, offer_decided_at: null } : flagged;
    return dated.offer_status === 'countered' ? { ...dated, offer_status: counteredOfferListedAs } : dated;
  }

  // A 2xx answer under a reading of its code and body (an undefined body: none).
  private static answer(res: Response, answer: { status: number; body: unknown }): unknown {
    res.status(answer.status);
    res.locals.answeredStatus = answer.status;
    return answer.body;
  }

  @Post('offer-requests')
  @HttpCode(201)
  createOfferRequest(
    @Caller() caller: SandboxAccount,
    @Body() body: unknown,
    @Res({ passthrough: true }) res: Response,
  ) {
    const record = this.requests.create(caller, body);
    return ApiController.answer(res, createAnswer(record, this.readings.current.createAnswer));
  }

  @Post('offer-requests/prelim')
  @HttpCode(200)
  prelim(@Body() body: unknown) {
    return prelimAnswer(prelimCounts(body), this.readings.current.prelimAnswer);
  }

  @Patch('offer-requests/:id')
  @HttpCode(204)
  updateOfferRequest(
    @Caller() caller: SandboxAccount,
    @Param('id') id: string,
    @Body() body: unknown,
    @Res({ passthrough: true }) res: Response,
  ) {
    return this.updated(res, this.requests.update(caller, id, body));
  }

  @Patch('offer-requests')
  @HttpCode(204)
  addMedia(
    @Caller() caller: SandboxAccount,
    @Body() body: unknown,
    @Res({ passthrough: true }) res: Response,
  ) {
    return this.updated(res, this.requests.addMedia(caller, body));
  }

  // Ours: 204 with no body (the spec's "no body"); the `record-200` reading: 200 with the record.
  private updated(res: Response, record: OfferRequestRecord): unknown {
    const reading = this.readings.current.updateAnswer;
    return ApiController.answer(
      res,
      reading === 'record-200' ? { status: 200, body: record } : { status: 204, body: undefined },
    );
  }

  @Get('active-offer-requests')
  @HttpCode(200)
  activeOfferRequests(@Caller() caller: SandboxAccount, @SearchParams() query: URLSearchParams) {
    const { activeLimitMax, activeLimitOver, activeListShape, activeSort } = this.readings.current;
    // A service that caps `limit`: silently (fewer than asked on a page that is not the last), or
    // by refusing a larger one.
    const asked = activeQueryUnder(activeSortUnder(query, activeSort), activeLimitMax, activeLimitOver);
    const page = this.marketplace.activePage(caller, asked).map((i) => activeItemShown(i, activeListShape));
    return pageAfterLast(page, asked, this.readings.current.pageAfterLast);
  }

  @Get('offers')
  @HttpCode(200)
  listOffers(@Caller() caller: SandboxAccount, @SearchParams() query: URLSearchParams) {
    const { offersQuery, offersOrder, expiredOfferListedAs, withdrawnOfferListedAs } = this.readings.current;
    const asked = offersQueryUnder(query, offersQuery);
    const shownUnderReadings = (o: Offer) => {
      const expired = expiredOfferShown(o, expiredOfferListedAs);
      const listed = expired && withdrawnOfferShown(expired, withdrawnOfferListedAs);
      return listed && this.shown(listed);
    };
    const page = this.offers.list(caller, asked, shownUnderReadings, offersOrder);
    return pageAfterLast(page, asked, this.readings.current.pageAfterLast);
  }

  @Patch('offers')
  @HttpCode(200)
  decideOffer(
    @Caller() caller: SandboxAccount,
    @Body() body: unknown,
    @Res({ passthrough: true }) res: Response,
  ) {
    const offer = this.shown(this.offers.decide(caller, body));
    return this.readings.current.decideAnswer === 'empty-204'
      ? ApiController.answer(res, { status: 204, body: undefined })
      : offer;
  }

  @Post('counter-offers')
  @HttpCode(201)
  counterOffer(
    @Caller() caller: SandboxAccount,
    @Body() body: unknown,
    @Res({ passthrough: true }) res: Response,
  ) {
    const counter = this.offers.counter(caller, body);
    return ApiController.answer(res, readCounterAnswer(counter, this.readings.current));
  }

  @Post('wh')
  @HttpCode(201)
  registerWebhook(@Caller() caller: SandboxAccount, @Body() body: unknown) {
    const { url } = readBody(WebhookConfig, body);
    if (this.readings.current.webhookMethods === 'post-once' && this.store.webhookUrls.has(caller.key))
      throw conflict('a webhook URL is already registered for this account; change it with PATCH /wh');
    this.store.webhookUrls.set(caller.key, url);
    return { url };
  }

  @Patch('wh')
  @HttpCode(200)
  updateWebhook(@Caller() caller: SandboxAccount, @Body() body: unknown) {
    const { url } = readBody(WebhookConfig, body);
    if (!this.store.webhookUrls.has(caller.key)) {
      const message = 'no webhook URL is registered for this account yet; register one with POST /wh';
      throw this.readings.current.webhookMethods === 'patch-422-when-none'
        ? new ApiError(422, message)
        : notFound(message);
    }
    this.store.webhookUrls.set(caller.key, url);
    return { url };
  }

  @Post('buyer/lead')
  @HttpCode(201)
  buyerLead(
    @Caller() caller: SandboxAccount,
    @Body() body: unknown,
    @Res({ passthrough: true }) res: Response,
  ) {
    const lead = this.marketplace.buyerLead(caller, body);
    const status = this.readings.current.leadAnswer === 'record-200' ? 200 : 201;
    return ApiController.answer(res, { status, body: lead });
  }

  @Post('push-to-marketplace')
  @HttpCode(200)
  pushToMarketplace(@Caller() caller: SandboxAccount, @Body() body: unknown) {
    return this.marketplace.push(caller, body);
  }
}

function withoutCounterId(offer: Offer): Offer {
  const { counter_offer_id: _named, ...rest } = offer;
  return rest;
}

// The offer without the fields the spec's table gives to webhook payloads.
function withoutWebhookFields(offer: Offer): Offer {
  const { offer_request_external_id: _r, external_id: _e, viewed: _v, offer_feedback: _f, ...rest } = offer;
  return rest;
}
