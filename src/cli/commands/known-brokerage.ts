import type { ConfigService } from '../../config/config.service';
import type { CliOutput } from '../output/cli-output';

// A --brokerage that names nothing is a typo, not an empty answer: say so and exit 1. A brokerage
// removed from the config but still in the ledger (`inLedger`), or whose file is there but does not
// load in this shell (the daemon may hold the secrets it lacks), is still known.
export function checkKnownBrokerage(
  config: ConfigService,
  output: CliOutput,
  brokerageId: string | undefined,
  inLedger = false,
): boolean {
  if (brokerageId === undefined || inLedger || config.isKnown(brokerageId)) return true;
  output.fail(config.whyNotLoaded(brokerageId));
  return false;
}
