import { Logger } from '@nestjs/common';
import { DEFAULT_FUB_EMULATOR_PORT } from './followupboss';
import { startSimulators } from './simulators';
import { SimulatorsLogger } from './simulators.logger';

// `npm run sandbox`: the bundled simulators on 127.0.0.1 (SANDBOX_PORT 4010, HUBSPOT_EMULATOR_PORT 4020,
// FUB_EMULATOR_PORT 4030).
async function main(): Promise<void> {
  Logger.overrideLogger(new SimulatorsLogger());
  const simulators = await startSimulators({
    followUpBossPort: Number(process.env.FUB_EMULATOR_PORT ?? DEFAULT_FUB_EMULATOR_PORT),
  });
  const stop = (): void => {
    new Logger('Simulators').log('stopping the simulators');
    void simulators.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((e: unknown) => {
  new Logger('Simulators').error(e instanceof Error ? e.message : String(e));
  process.exit(1);
});
