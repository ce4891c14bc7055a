// A handler's verdict that an event is a claim this brokerage cannot act on (an offer on a request
// its ledger does not link, one the service does not confirm, values the spec forbids): the event
// is flagged with the reason, never retried and never applied. `replay --events` can retry it.
export class EventRefusedError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'EventRefusedError';
  }
}
