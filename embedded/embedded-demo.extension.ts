import type { Environment } from '../src/config/brokerage-secrets';
import type { Simulators } from '../sandbox/simulators';
import type { DaemonExtension } from '../src/app/daemon-extension';
import { prepareDemoCrm, seedDemo } from './demo-seeder';
import { ledgerPathFor, resetDemoLedger, startEmbeddedSimulators } from './embedded-simulators';
import { withSimulatorDefaults } from './simulated-env';

// The embedded default as a composition around the daemon (`npm start`): before the daemon is built,
// the demo's ledger is started afresh and the bundled simulators are started for the brokerages
// marked `simulated: true`; before it listens, their CRM schema is made (so the first runs find their
// pipelines); once it listens, the demo's listing deals are seeded. The daemon itself knows nothing
// of this: a config without simulated brokerages makes every step a no-op.
export function embeddedDemo(env: Environment): DaemonExtension {
  let simulators: Simulators | undefined;
  return {
    // Simulated brokerages' secret variables default to the simulators' own credentials.
    environment: withSimulatorDefaults,
    // A demo gets its own ledger file, so its reset at start can never reach the operator's ledger.
    ledgerPath: ledgerPathFor,
    async beforeCreate({ config, settings }) {
      await resetDemoLedger(config.brokerages(), env, settings.ledgerPath);
      simulators = await startEmbeddedSimulators(config.brokerages());
    },
    async beforeListen(app, { config }) {
      if (simulators) await prepareDemoCrm(app, config.brokerages());
    },
    async afterListen(_app, { config }) {
      if (simulators) await seedDemo(simulators, config.brokerages());
    },
  };
}
