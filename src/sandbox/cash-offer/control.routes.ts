import { JsonObject, isPlainObject, isValidDateTime } from '../../cash-offer/schema';
import { seedActiveRequests } from './active.seeder';
import { Autopilot } from './autopilot';
import { ExpirySweeper } from './expiry.sweeper';
import { FaultInjector, validateFaultConfig } from './fault.injector';
import { Router } from './http/router';
import { MediaSigner } from './media.signer';
import { OfferRequestService } from './offer-request.service';
import { toOfferRequestRecord } from './offer-request.view';
import { OfferService } from './offer.service';
import { toOffer } from './offer.view';
import { RequestLifecycle, RequestTransition } from './request.lifecycle';
import { SandboxClock } from './sandbox.clock';
import { badRequest } from './sandbox.errors';
import { SandboxStore } from './sandbox.store';

export interface ControlServices {
  store: SandboxStore;
  clock: SandboxClock;
  faults: FaultInjector;
  signer: MediaSigner;
  lifecycle: RequestLifecycle;
  requests: OfferRequestService;
  offers: OfferService;
  autopilot: Autopilot;
  sweeper: ExpirySweeper;
  agentKey: string;
  // Cancels background work (webhook retries, pushes) of the state a reset empties.
  onReset: () => void;
}

const TRANSITIONS: readonly RequestTransition[] = ['process', 'approve', 'deny', 'expire', 'renew', 'close'];

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

// The unauthenticated control API under /__control, for tests and demos (docs/sandbox.md).
export function buildControlRouter(s: ControlServices): Router {
  const router = new Router();
  const ok = (body: unknown, status = 200) => ({ status, body });

  router.on('POST', '/reset', () => {
    s.onReset();
    s.store.reset();
    s.faults.clear();
    s.clock.reset();
    return ok({ reset: true });
  });
  router.on('GET', '/faults', () => ok(s.faults.current()));
  router.on('PUT', '/faults', (c) => {
    s.faults.set(validateFaultConfig(objectBody(c.body)));
    return ok(s.faults.current());
  });
  router.on('DELETE', '/faults', () => {
    s.faults.clear();
    return ok(s.faults.current());
  });

  for (const t of TRANSITIONS) {
    router.on('POST', `/offer-requests/:id/${t}`, (c) => {
      const r = s.requests.findRequest(c.params.id);
      const b = objectBody(c.body);
      const expiresAt = b.offer_request_expires_at;
      if (expiresAt !== undefined && (typeof expiresAt !== 'string' || !isValidDateTime(expiresAt)))
        throw badRequest('offer_request_expires_at must be a date-time with a time zone');
      s.lifecycle.apply(r, t, expiresAt);
      return ok(toOfferRequestRecord(r));
    });
  }
  router.on('POST', '/offer-requests/:id/offers', (c) => {
    const b = objectBody(c.body);
    for (const field of ['offer_expires', 'created_at'])
      if (b[field] !== undefined && (typeof b[field] !== 'string' || !isValidDateTime(b[field])))
        throw badRequest(`${field} must be a date-time with a time zone`);
    return ok(s.offers.makeOffer(s.requests.findRequest(c.params.id), b), 201);
  });
  router.on('POST', '/counter-offers/:id/accept', (c) => ok(s.offers.acceptCounter(c.params.id)));
  router.on('POST', '/counter-offers/:id/reject', (c) => ok(s.offers.rejectCounter(c.params.id)));

  router.on('GET', '/clock', () => ok({ now: s.clock.nowIso() }));
  router.on('POST', '/clock/advance', (c) => {
    const ms = objectBody(c.body).ms;
    if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0)
      throw badRequest('ms must be a number of at least 0');
    s.clock.advance(ms);
    s.sweeper.sweep();
    return ok({ now: s.clock.nowIso() });
  });

  router.on('GET', '/autopilot', () =>
    ok({ enabled: s.autopilot.enabled, intervalMs: s.autopilot.intervalMs }),
  );
  router.on('PUT', '/autopilot', (c) => {
    const b = objectBody(c.body);
    if (typeof b.enabled !== 'boolean') throw badRequest('enabled must be true or false');
    const interval = b.intervalMs ?? s.autopilot.intervalMs;
    if (typeof interval !== 'number' || interval < 10)
      throw badRequest('intervalMs must be a number of at least 10');
    s.autopilot.set(b.enabled, interval);
    return ok({ enabled: s.autopilot.enabled, intervalMs: s.autopilot.intervalMs });
  });

  router.on('POST', '/seed-active', (c) => {
    const b = objectBody(c.body);
    const ownerKey = (b.ownerKey as string | undefined) ?? s.agentKey;
    const owner = s.store.accountsByKey.get(ownerKey);
    if (!owner) throw badRequest('ownerKey is not the key of a seeded account');
    return ok(seedActiveRequests(s.store, s.clock, s.signer, owner, b.count as number), 201);
  });

  router.on('GET', '/offer-requests', (c) => {
    s.sweeper.sweepIfDue();
    const status = c.query.get('status');
    const all = [...s.store.requests.values()].filter((r) => !status || r.offer_request_status === status);
    return ok(
      paged(all, c.query).map((r) => ({
        ...toOfferRequestRecord(r),
        owner_user_id: s.store.accountOf(r)?.userId,
        property: r.property,
        media: r.media.map((m) => ({ url: m.url, signed_url: s.signer.signedUrl(m.token) })),
        assumptions: r.assumptions,
      })),
    );
  });
  router.on('GET', '/offers', (c) => {
    s.sweeper.sweepIfDue();
    return ok(
      paged([...s.store.offers.values()], c.query).map((o) =>
        toOffer(o, s.store.requests.get(o.offer_request_id)),
      ),
    );
  });
  router.on('GET', '/counter-offers', (c) => ok(paged([...s.store.counters.values()], c.query)));
  router.on('GET', '/buyer-leads', (c) => ok(paged(s.store.leads, c.query)));
  router.on('GET', '/emails', (c) => ok(paged(s.store.emails, c.query)));
  router.on('GET', '/webhook-deliveries', (c) => ok(paged(s.store.deliveries, c.query)));
  router.on('GET', '/webhooks', () => ok(Object.fromEntries(s.store.webhookUrls)));
  router.on('GET', '/calls', (c) => ok(paged(s.store.calls, c.query)));
  router.on('DELETE', '/calls', () => {
    s.store.calls.length = 0;
    return ok({ cleared: true });
  });
  router.on('GET', '/stats', () => ok(stats(s.store)));
  return router;
}

function countBy<T>(items: Iterable<T>, key: (item: T) => string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[key(item)] = (counts[key(item)] ?? 0) + 1;
  return counts;
}

function stats(store: SandboxStore): JsonObject {
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
