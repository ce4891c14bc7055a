import { Logger } from '@nestjs/common';
import { SimulatorsLogger } from '../simulators.logger';
import { startHubSpotEmulator } from './index';

// Runs the emulator on its own: HUBSPOT_EMULATOR_PORT (4020), HUBSPOT_EMULATOR_TOKEN.
async function main(): Promise<void> {
  Logger.overrideLogger(new SimulatorsLogger());
  const emulator = await startHubSpotEmulator();
  const logger = new Logger('HubSpotEmulator');
  logger.log(`HubSpot emulator on ${emulator.url}; accepts the private-app token "${emulator.token}"`);
  const stop = (): void => void emulator.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

if (require.main === module) void main();
