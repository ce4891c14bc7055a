import { checkWire, formatViolations, type JsonObject } from '../cash-offer/schema';
import { EventRefusedError } from './event-refused.error';

// A stored event's payload, checked against its wire class and typed as it. A payload that
// breaks a rule of the spec is refused (the inbox flags it with the fields named); fields the
// class does not know are kept as sent.
export function readEventPayload<T extends object>(
  dto: new () => T,
  payload: JsonObject,
  eventType: string,
): T {
  const { violations } = checkWire(dto, payload);
  if (violations.length > 0)
    throw new EventRefusedError(`${eventType} refused: ${formatViolations(violations)}`);
  return payload as T;
}
