import type { ConfigService } from '../../config/config.service';

// The brokerages a command acts on: the one named by --brokerage, or every enabled one.
export function selectBrokerages(config: ConfigService, brokerageId: string | undefined): string[] {
  if (brokerageId === undefined) return config.enabledBrokerages().map((b) => b.id);
  // A file that exists but does not load (a missing secret, an invalid field) is not "unknown": the
  // message says what keeps it from loading, which is what the operator has to fix.
  if (!config.get(brokerageId)) throw new Error(config.whyNotLoaded(brokerageId));
  return [brokerageId];
}

// For commands that act on every brokerage: the ones whose file did not load, with why, so a command
// that found nothing to do does not end silently as if all were well.
export function unreadyBrokerageMessages(config: ConfigService): string[] {
  return [...config.unreadyBrokerages().keys()].map((id) => config.whyNotLoaded(id));
}
