import { WebhookConfig, validateWire } from '../../cash-offer/schema';
import { Router } from './http/router';
import { MarketplaceService } from './marketplace.service';
import { OfferRequestService } from './offer-request.service';
import { OfferService } from './offer.service';
import { assertValid, notFound } from './sandbox.errors';
import { SandboxStore } from './sandbox.store';
import { prelimCounts } from './simulated-buyers';

export interface ApiServices {
  store: SandboxStore;
  requests: OfferRequestService;
  offers: OfferService;
  marketplace: MarketplaceService;
}

// Every endpoint of the spec, under /api/v2, with the status codes of docs/spec-decisions.md.
export function buildApiRouter(s: ApiServices): Router {
  const router = new Router();
  router
    .on('POST', '/offer-requests', (c) => ({ status: 201, body: s.requests.create(c.caller, c.body) }))
    .on('POST', '/offer-requests/prelim', (c) => ({ status: 200, body: prelimCounts(c.body) }))
    .on('PATCH', '/offer-requests/:id', (c) => {
      s.requests.update(c.caller, c.params.id, c.body);
      return { status: 204 };
    })
    .on('PATCH', '/offer-requests', (c) => {
      s.requests.addMedia(c.caller, c.body);
      return { status: 204 };
    })
    .on('GET', '/active-offer-requests', (c) => ({
      status: 200,
      body: s.marketplace.activePage(c.caller, c.query),
    }))
    .on('GET', '/offers', (c) => ({ status: 200, body: s.offers.list(c.caller, c.query) }))
    .on('PATCH', '/offers', (c) => ({ status: 200, body: s.offers.decide(c.caller, c.body) }))
    .on('POST', '/counter-offers', (c) => ({ status: 201, body: s.offers.counter(c.caller, c.body) }))
    .on('POST', '/wh', (c) => {
      assertValid(validateWire(WebhookConfig, c.body));
      const url = (c.body as { url: string }).url;
      s.store.webhookUrls.set(c.caller.key, url);
      return { status: 201, body: { url } };
    })
    .on('PATCH', '/wh', (c) => {
      assertValid(validateWire(WebhookConfig, c.body));
      if (!s.store.webhookUrls.has(c.caller.key))
        throw notFound('no webhook URL is registered for this account yet; register one with POST /wh');
      const url = (c.body as { url: string }).url;
      s.store.webhookUrls.set(c.caller.key, url);
      return { status: 200, body: { url } };
    })
    .on('POST', '/buyer/lead', (c) => ({ status: 201, body: s.marketplace.buyerLead(c.caller, c.body) }))
    .on('POST', '/push-to-marketplace', (c) => ({ status: 200, body: s.marketplace.push(c.caller, c.body) }));
  return router;
}
