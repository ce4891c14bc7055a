import { Logger } from '@nestjs/common';
import { existsSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Environment } from '../src/config/brokerage-secrets';
import type { LoadedBrokerage } from '../src/config/config.loader';
import { openLedger } from '../src/ledger/ledger';
import { DEMO_LEDGER_PURPOSE, markLedgerPurpose, readLedgerPurpose } from '../src/ledger/ledger-meta';
import { startSimulators, type Simulators } from '../sandbox/simulators';

// The embedded default: brokerages marked `simulated: true` talk to the bundled simulators, which
// the daemon starts itself (with the autopilot on), so `npm start` on a fresh clone shows the whole
// loop. A config without such brokerages starts no simulator.
export async function startEmbeddedSimulators(
  brokerages: LoadedBrokerage[],
): Promise<Simulators | undefined> {
  const simulated = brokerages.filter((b) => b.config.simulated === true && b.config.enabled !== false);
  if (simulated.length === 0) return undefined;
  const cashOfferPorts = new Set(
    simulated.map((b) => loopbackPort(b, 'cashOffer.baseUrl', b.config.cashOffer.baseUrl)),
  );
  const crmPorts = (kind: string): Set<number> =>
    new Set(
      simulated
        .filter((b) => b.config.crm.kind === kind)
        .map((b) => loopbackPort(b, 'crm.baseUrl', b.config.crm.baseUrl)),
    );
  const hubspotPorts = crmPorts('hubspot');
  const followUpBossPorts = crmPorts('followupboss');
  if (cashOfferPorts.size > 1 || hubspotPorts.size > 1 || followUpBossPorts.size > 1)
    throw new Error(
      'simulated brokerages must share one Cash Offer sandbox and one emulator per CRM (the same base URLs)',
    );
  const simulators = await startSimulators({
    cashOfferPort: [...cashOfferPorts][0],
    hubspotPort: [...hubspotPorts][0],
    followUpBossPort: [...followUpBossPorts][0],
    autopilot: true,
  });
  new Logger('Embedded').log(
    `started the bundled simulators for ${simulated.map((b) => b.id).join(', ')} (autopilot on: requests are approved and buyers make offers by themselves)`,
  );
  return simulators;
}

// The demo's own ledger, never the operator's `data/ledger.sqlite`: a demo that resets its ledger at
// every start must not be able to reach a production one by a change of configuration.
export const DEMO_LEDGER_PATH = 'data/demo/ledger.sqlite';

// A demo: every enabled brokerage simulated and no LEDGER_PATH chosen by the operator.
export function isPureDemo(brokerages: LoadedBrokerage[], env: Environment): boolean {
  const enabled = brokerages.filter((b) => b.config.enabled !== false);
  const allSimulated = enabled.length > 0 && enabled.every((b) => b.config.simulated === true);
  return allSimulated && !env.LEDGER_PATH?.trim();
}

// Where the ledger lives: the demo's own file for a demo, else what the settings say.
export function ledgerPathFor(brokerages: LoadedBrokerage[], env: Environment, configured: string): string {
  return isPureDemo(brokerages, env) ? resolve(DEMO_LEDGER_PATH) : configured;
}

// The simulators keep their state in memory, so a demo starts from a fresh ledger too; otherwise it
// would remember records the new simulators lack. Only a file that says it is a demo's ledger (its
// ledger_meta row) is ever deleted; anything else at that path stops the start instead.
export async function resetDemoLedger(
  brokerages: LoadedBrokerage[],
  env: Environment,
  ledgerPath: string,
): Promise<boolean> {
  if (!isPureDemo(brokerages, env)) return false;
  if (existsSync(ledgerPath)) {
    if (readLedgerPurpose(ledgerPath) !== DEMO_LEDGER_PURPOSE)
      throw new Error(
        `refusing to delete ${ledgerPath} to start the demo afresh: it is not marked as a demo ledger; move it away or set LEDGER_PATH`,
      );
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${ledgerPath}${suffix}`, { force: true });
  }
  const ledger = await openLedger({ databasePath: ledgerPath });
  try {
    await markLedgerPurpose(ledger.dataSource, DEMO_LEDGER_PURPOSE);
  } finally {
    await ledger.close();
  }
  new Logger('Embedded').log(`demo: started ${ledgerPath} afresh, because the simulators start empty`);
  return true;
}

function loopbackPort(brokerage: LoadedBrokerage, key: string, url: string | undefined): number {
  const parsed = url ? new URL(url) : undefined;
  if (!parsed || !['127.0.0.1', 'localhost'].includes(parsed.hostname) || !parsed.port)
    throw new Error(
      `${brokerage.file} (${brokerage.id}): ${key} must be http://127.0.0.1:<port>/... for a simulated brokerage`,
    );
  return Number(parsed.port);
}
