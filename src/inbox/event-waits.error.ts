// A handler's verdict that an event waits on the daemon's own unfinished work: an offer on a request
// whose create's answer is still being looked for, a buyer's UPDATE on a counter whose link is not
// written yet. Not the event's fault, as an outage is not: it is retried as one is (at most
// `remoteRetryCapMs` apart, for up to `maxRemoteWaitMs`), never given up after `maxAttempts` while
// that work may still finish. (A 200-kill soak on PostgreSQL, seed 20261242, gave up on offer events
// after nine tries in 51 s while their creates' looks waited behind a slow service lane; the events
// were the only evidence naming those deals' requests, and ten deals never learned their request id.)
export class EventWaitsError extends Error {
  override readonly name = 'EventWaitsError';
}
