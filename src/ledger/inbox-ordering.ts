// The inbox's ordering key of an offer request's events: they are applied one at a time, in order
// (InboxEvent.orderingKey).
export function requestOrderingKey(requestId: number | string): string {
  return `offer_request:${String(requestId)}`;
}
