import type { ConfigService } from '../../config/config.service';
import type { CliOutput } from '../output/cli-output';

// A --brokerage that names nothing is a typo, not an empty answer: say so and exit 1. A brokerage
// removed from the config but still in the ledger (`inLedger`) is still known.
export function checkKnownBrokerage(
  config: ConfigService,
  output: CliOutput,
  brokerageId: string | undefined,
  inLedger = false,
): boolean {
  if (brokerageId === undefined || config.get(brokerageId) || inLedger) return true;
  const known = config.brokerages().map((b) => b.id);
  output.fail(
    `no brokerage "${brokerageId}" is configured in ${config.configDir} (known: ${known.join(', ') || 'none'})`,
  );
  return false;
}
