import { Logger } from '@nestjs/common';
import { startSimulators } from './simulators';

// `npm run sandbox`: the bundled simulators on 127.0.0.1 (SANDBOX_PORT 4010, HUBSPOT_EMULATOR_PORT 4020).
async function main(): Promise<void> {
  const simulators = await startSimulators();
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
