import { AWAITING_EVIDENCE_NOTE } from '../../ledger';

// A command that did its part and cannot finish until the service shows something it has not shown
// yet (a create answered without its request id, on a service whose lists do not name the deal):
// no number of tries makes that come sooner, so it is tried again on the outbox's back-off for as
// long as it takes, never given up, and the record says what it waits for. Its message, kept as the
// command's last error, begins with AWAITING_EVIDENCE_NOTE, so the stale-work alert passes it by.
export class AwaitingEvidenceError extends Error {
  override readonly name = 'AwaitingEvidenceError';

  constructor(what: string) {
    super(`${AWAITING_EVIDENCE_NOTE}${what}`);
  }
}
