// A command that did its part and cannot finish until the service shows something it has not shown
// yet (a create answered without its request id, on a service whose lists do not name the deal):
// no number of tries makes that come sooner, so it is tried again on the outbox's back-off for as
// long as it takes, never given up, and the record says what it waits for.
export class AwaitingEvidenceError extends Error {
  override readonly name = 'AwaitingEvidenceError';
}
