import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Inject,
  Param,
  Post,
  Put,
  Req,
  UseInterceptors,
} from '@nestjs/common';
import type { Request } from 'express';
import { JsonObject, isPlainObject, isValidDateTime } from '../../../src/cash-offer/schema';
import { seedActiveRequests } from '../active.seeder';
import { Autopilot } from '../autopilot';
import { ExpirySweeper } from '../expiry.sweeper';
import { FaultInjector, validateFaultConfig } from '../fault.injector';
import { MarketplaceService } from '../marketplace.service';
import { MediaSigner } from '../media.signer';
import { OfferRequestService } from '../offer-request.service';
import { toOfferRequestRecord } from '../offer-request.view';
import { OfferService } from '../offer.service';
import { toOffer } from '../offer.view';
import { RequestLifecycle, RequestTransition } from '../request.lifecycle';
import { SandboxClock } from '../sandbox.clock';
import { badRequest, notFound } from '../sandbox.errors';
import { SandboxStore } from '../sandbox.store';
import { parseSpecReadings, SpecReadings } from '../spec-readings';
import { WebhookSender } from '../webhook.sender';
import { JsonBodyInterceptor } from './json-body.interceptor';
import { SearchParams, urlOf } from './sandbox.request';
import { AGENT_KEY } from './sandbox.tokens';

const TRANSITIONS: readonly string[] = ['process', 'approve', 'deny', 'expire', 'renew', 'close'];

function objectBody(body: unknown): JsonObject {
  if (body === undefined) return {};
  if (!isPlainObject(body)) throw badRequest('the body must be a JSON object');
  return body;
}

function paged<T>(items: readonly T[], query: URLSearchParams): T[] {
  const offset = Number(query.get('offset') ?? 0);
  const limit = query.has('limit') ? Number(query.get('limit')) : items.length;
  return items.slice(offset, offset + limit);
}

function countBy<T>(items: Iterable<T>, key: (item: T) => string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[key(item)] = (counts[key(item)] ?? 0) + 1;
  return counts;
}

// The unauthenticated control API under /__control, for tests and demos (docs/sandbox.md).
@Controller('__control')
@UseInterceptors(JsonBodyInterceptor)
export class ControlController {
  constructor(
    private readonly store: SandboxStore,
    private readonly clock: SandboxClock,
    private readonly faults: FaultInjector,
    private readonly signer: MediaSigner,
    private readonly lifecycle: RequestLifecycle,
    private readonly requests: OfferRequestService,
    private readonly offers: OfferService,
    private readonly autopilot: Autopilot,
    private readonly sweeper: ExpirySweeper,
    private readonly webhooks: WebhookSender,
    private readonly marketplace: MarketplaceService,
    private readonly readings: SpecReadings,
    @Inject(AGENT_KEY) private readonly agentKey: string,
  ) {}

  @Post('reset')
  @HttpCode(200)
  reset() {
    // Background work (webhook retries, pushes) of the state a reset empties.
    this.webhooks.cancelPending();
    this.marketplace.cancelPending();
    this.store.reset();
    this.faults.clear();
    this.clock.reset();
    this.readings.reset();
    return { reset: true };
  }

  // How the sandbox answers where the spec says "not shown" (docs/sandbox.md, "Spec readings").
  @Get('spec-readings')
  currentReadings() {
    return this.readings.current;
  }

  @Put('spec-readings')
  setReadings(@Body() body: unknown) {
    return this.readings.set(parseSpecReadings(objectBody(body), 'the spec-readings body'));
  }

  @Get('faults')
  currentFaults() {
    return this.faults.current();
  }

  @Put('faults')
  setFaults(@Body() body: unknown) {
    this.faults.set(validateFaultConfig(objectBody(body)));
    return this.faults.current();
  }

  @Delete('faults')
  clearFaults() {
    this.faults.clear();
    return this.faults.current();
  }

  @Post('offer-requests/:id/offers')
  @HttpCode(201)
  makeOffer(@Param('id') id: string, @Body() body: unknown) {
    const b = objectBody(body);
    for (const field of ['offer_expires', 'created_at'])
      if (b[field] !== undefined && (typeof b[field] !== 'string' || !isValidDateTime(b[field])))
        throw badRequest(`${field} must be a date-time with a time zone`);
    return this.offers.makeOffer(this.requests.findRequest(id), b);
  }

  // Any status, from any status (a reopened or resubmitted request): `{ offer_request_status }`.
  @Post('offer-requests/:id/status')
  @HttpCode(200)
  moveTo(@Param('id') id: string, @Body() body: unknown) {
    const r = this.requests.findRequest(id);
    const b = objectBody(body);
    const status = b.offer_request_status;
    if (typeof status !== 'string' || !/^[a-z_]{1,50}$/.test(status))
      throw badRequest('offer_request_status must be a status word (lower case and underscores)');
    const expiresAt = b.offer_request_expires_at;
    if (expiresAt !== undefined && (typeof expiresAt !== 'string' || !isValidDateTime(expiresAt)))
      throw badRequest('offer_request_expires_at must be a date-time with a time zone');
    this.lifecycle.moveTo(r, status, expiresAt);
    return toOfferRequestRecord(r);
  }

  @Post('offer-requests/:id/:transition')
  @HttpCode(200)
  transition(
    @Req() req: Request,
    @Param('id') id: string,
    @Param('transition') transition: string,
    @Body() body: unknown,
  ) {
    if (!TRANSITIONS.includes(transition)) throw notFound(`no control route POST ${urlOf(req).pathname}`);
    const r = this.requests.findRequest(id);
    const expiresAt = objectBody(body).offer_request_expires_at;
    if (expiresAt !== undefined && (typeof expiresAt !== 'string' || !isValidDateTime(expiresAt)))
      throw badRequest('offer_request_expires_at must be a date-time with a time zone');
    this.lifecycle.apply(r, transition as RequestTransition, expiresAt);
    return toOfferRequestRecord(r);
  }

  @Post('offers/:id/withdraw')
  @HttpCode(200)
  withdrawOffer(@Param('id') id: string) {
    const offerId = Number(id);
    if (!Number.isInteger(offerId)) throw badRequest(`offer id must be a whole number, not ${id}`);
    return this.offers.withdraw(offerId);
  }

  @Post('counter-offers/:id/accept')
  @HttpCode(200)
  acceptCounter(@Param('id') id: string) {
    return this.offers.acceptCounter(id);
  }

  @Post('counter-offers/:id/reject')
  @HttpCode(200)
  rejectCounter(@Param('id') id: string) {
    return this.offers.rejectCounter(id);
  }

  @Get('clock')
  clockNow() {
    return { now: this.clock.nowIso() };
  }

  @Post('clock/advance')
  @HttpCode(200)
  advanceClock(@Body() body: unknown) {
    const ms = objectBody(body).ms;
    if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0)
      throw badRequest('ms must be a number of at least 0');
    this.clock.advance(ms);
    this.sweeper.sweep();
    return { now: this.clock.nowIso() };
  }

  @Get('autopilot')
  autopilotState() {
    return { enabled: this.autopilot.enabled, intervalMs: this.autopilot.intervalMs };
  }

  @Put('autopilot')
  setAutopilot(@Body() body: unknown) {
    const b = objectBody(body);
    if (typeof b.enabled !== 'boolean') throw badRequest('enabled must be true or false');
    const interval = b.intervalMs ?? this.autopilot.intervalMs;
    if (typeof interval !== 'number' || interval < 10)
      throw badRequest('intervalMs must be a number of at least 10');
    this.autopilot.set(b.enabled, interval);
    return { enabled: this.autopilot.enabled, intervalMs: this.autopilot.intervalMs };
  }

  @Post('seed-active')
  @HttpCode(201)
  seedActive(@Body() body: unknown) {
    const b = objectBody(body);
    const ownerKey = (b.ownerKey as string | undefined) ?? this.agentKey;
    const owner = this.store.accountsByKey.get(ownerKey);
    if (!owner) throw badRequest('ownerKey is not the key of a seeded account');
    return seedActiveRequests(this.store, this.clock, this.signer, owner, b.count as number);
  }

  @Get('offer-requests')
  offerRequests(@SearchParams() query: URLSearchParams) {
    this.sweeper.sweepIfDue();
    const status = query.get('status');
    const all = [...this.store.requests.values()].filter((r) => !status || r.offer_request_status === status);
    return paged(all, query).map((r) => ({
      ...toOfferRequestRecord(r),
      owner_user_id: this.store.accountOf(r)?.userId,
      property: r.property,
      media: r.media.map((m) => ({ url: m.url, signed_url: this.signer.signedUrl(m.token) })),
      assumptions: r.assumptions,
    }));
  }

  @Get('offers')
  allOffers(@SearchParams() query: URLSearchParams) {
    this.sweeper.sweepIfDue();
    return paged([...this.store.offers.values()], query).map((o) =>
      toOffer(o, this.store.requests.get(o.offer_request_id)),
    );
  }

  @Get('counter-offers')
  counterOffers(@SearchParams() query: URLSearchParams) {
    return paged([...this.store.counters.values()], query);
  }

  @Get('buyer-leads')
  buyerLeads(@SearchParams() query: URLSearchParams) {
    return paged(this.store.leads, query);
  }

  @Get('emails')
  emails(@SearchParams() query: URLSearchParams) {
    return paged(this.store.emails, query);
  }

  @Get('webhook-deliveries')
  webhookDeliveries(@SearchParams() query: URLSearchParams) {
    return paged(this.store.deliveries, query);
  }

  @Get('webhooks')
  webhookUrls() {
    return Object.fromEntries(this.store.webhookUrls);
  }

  @Get('calls')
  calls(@SearchParams() query: URLSearchParams) {
    return paged(this.store.calls, query);
  }

  @Delete('calls')
  clearCalls() {
    this.store.calls.length = 0;
    return { cleared: true };
  }

  @Get('stats')
  stats() {
    const store = this.store;
    return {
      offer_requests: store.requests.size,
      offer_requests_by_status: countBy(store.requests.values(), (r) => r.offer_request_status),
      active_offer_requests: store.active.size,
      offers: store.offers.size,
      offers_by_status: countBy(store.offers.values(), (o) => o.offer_status),
      counter_offers: store.counters.size,
      buyer_leads: store.leads.length,
      emails: store.emails.length,
      webhook_deliveries: store.deliveries.length,
      webhook_deliveries_by_outcome: countBy(store.deliveries, (d) => d.outcome),
      calls: store.calls.length,
      calls_by_status: countBy(store.calls, (c) => String(c.status)),
    };
  }
}
