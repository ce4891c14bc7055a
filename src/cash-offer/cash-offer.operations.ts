import {
  BuyerLead,
  CounterOffer,
  Offer,
  OfferRequestRecord,
  PrelimResult,
  PushToMarketplaceResult,
  WebhookConfig,
} from './schema';

// Every endpoint the client calls, named the way logs, metrics and errors show it.
// `create` operations make a new remote record: repeating one that may have reached the service
// could create it twice, so they are retried only when the request provably never left.
export type OperationKind = 'safe' | 'create';

export interface OperationSpec {
  readonly name: string;
  readonly method: 'GET' | 'POST' | 'PATCH';
  readonly kind: OperationKind;
  // The wire class of the answer (of each item, for a list), checked when one comes.
  readonly answer?: new () => object;
}

const op = (
  method: OperationSpec['method'],
  path: string,
  kind: OperationKind,
  answer?: new () => object,
): OperationSpec => ({ name: `${method} ${path}`, method, kind, ...(answer ? { answer } : {}) });

export const OPERATIONS = {
  createOfferRequest: op('POST', '/offer-requests', 'create', OfferRequestRecord),
  prelim: op('POST', '/offer-requests/prelim', 'safe', PrelimResult),
  updateOfferRequest: op('PATCH', '/offer-requests/{id}', 'safe'),
  // The service appends the photos: sent again after an answer that did not come back, they could
  // be added twice, so a photo add is a create.
  addMedia: op('PATCH', '/offer-requests', 'create'),
  // Not checked item by item: the marketplace pages through up to 100k items (about 0.5 ms each
  // to check), and its readers already cope with absent fields (listing-key.ts).
  listActiveOfferRequests: op('GET', '/active-offer-requests', 'safe'),
  listOffers: op('GET', '/offers', 'safe', Offer),
  decideOffer: op('PATCH', '/offers', 'safe', Offer),
  counterOffer: op('POST', '/counter-offers', 'create', CounterOffer),
  registerWebhook: op('POST', '/wh', 'safe', WebhookConfig),
  updateWebhook: op('PATCH', '/wh', 'safe', WebhookConfig),
  submitBuyerLead: op('POST', '/buyer/lead', 'create', BuyerLead),
  pushToMarketplace: op('POST', '/push-to-marketplace', 'create', PushToMarketplaceResult),
} as const satisfies Record<string, OperationSpec>;

export type OperationName = keyof typeof OPERATIONS;
