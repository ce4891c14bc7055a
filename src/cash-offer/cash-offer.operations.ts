// Every endpoint the client calls, named the way logs, metrics and errors show it.
// `create` operations make a new remote record: repeating one that may have reached the service
// could create it twice, so they are retried only when the request provably never left.
export type OperationKind = 'safe' | 'create';

export interface OperationSpec {
  readonly name: string;
  readonly method: 'GET' | 'POST' | 'PATCH';
  readonly kind: OperationKind;
}

const op = (method: OperationSpec['method'], path: string, kind: OperationKind): OperationSpec => ({
  name: `${method} ${path}`,
  method,
  kind,
});

export const OPERATIONS = {
  createOfferRequest: op('POST', '/offer-requests', 'create'),
  prelim: op('POST', '/offer-requests/prelim', 'safe'),
  updateOfferRequest: op('PATCH', '/offer-requests/{id}', 'safe'),
  addMedia: op('PATCH', '/offer-requests', 'safe'),
  listActiveOfferRequests: op('GET', '/active-offer-requests', 'safe'),
  listOffers: op('GET', '/offers', 'safe'),
  decideOffer: op('PATCH', '/offers', 'safe'),
  counterOffer: op('POST', '/counter-offers', 'create'),
  registerWebhook: op('POST', '/wh', 'safe'),
  updateWebhook: op('PATCH', '/wh', 'safe'),
  submitBuyerLead: op('POST', '/buyer/lead', 'create'),
  pushToMarketplace: op('POST', '/push-to-marketplace', 'create'),
} as const satisfies Record<string, OperationSpec>;

export type OperationName = keyof typeof OPERATIONS;
