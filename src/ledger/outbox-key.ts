// The idempotency key of a remote write: the same local record and operation always give the same key,
// so a retried or replayed command can never become a second command.
export function outboxKey(brokerageId: string, recordRef: string, operation: string): string {
  for (const [name, value] of Object.entries({ brokerageId, recordRef, operation })) {
    if (value.trim() === '') throw new Error(`outbox key: ${name} is empty`);
  }
  // Parts are escaped so that 'a:b' + 'c' and 'a' + 'b:c' cannot give the same key.
  return [brokerageId, recordRef, operation].map((part) => encodeURIComponent(part)).join(':');
}
