import type { Environment } from '../../config/brokerage-secrets';
import type { Simulators } from '../../sandbox/simulators';
import type { DaemonExtension } from '../daemon-extension';
import { prepareDemoCrm, seedDemo } from './demo-seeder';
import { resetDemoLedger, startEmbeddedSimulators } from './embedded-simulators';

// The embedded default as a composition around the daemon (`npm start`): before the daemon is built,
// the demo's ledger is started afresh and the bundled simulators are started for the brokerages
// marked `simulated: true`; before it listens, their CRM schema is made (so the first runs find their
// pipelines); once it listens, the demo's listing deals are seeded. The daemon itself knows nothing
// of this: a config without simulated brokerages makes every step a no-op.
export function embeddedDemo(env: Environment): DaemonExtension {
  let simulators: Simulators | undefined;
  return {
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
