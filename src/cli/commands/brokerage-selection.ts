import type { ConfigService } from '../../config/config.service';

// The brokerages a command acts on: the one named by --brokerage, or every enabled one.
export function selectBrokerages(config: ConfigService, brokerageId: string | undefined): string[] {
  if (brokerageId === undefined) return config.enabledBrokerages().map((b) => b.id);
  if (!config.get(brokerageId)) {
    const known = config.brokerages().map((b) => b.id);
    throw new Error(`no brokerage "${brokerageId}" is configured (known: ${known.join(', ') || 'none'})`);
  }
  return [brokerageId];
}
