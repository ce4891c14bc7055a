import { Logger } from '@nestjs/common';
import { loadSandboxAccounts, RunningCashOfferSandbox, startCashOfferSandbox } from './cash-offer';
import { HubSpotEmulator, startHubSpotEmulator } from './hubspot';

export interface Simulators {
  cashOffer: RunningCashOfferSandbox;
  hubspot: HubSpotEmulator;
  close(): Promise<void>;
}

export interface SimulatorOptions {
  cashOfferPort?: number;
  hubspotPort?: number;
  autopilot?: boolean;
  log?: boolean;
}

// The bundled simulators of the Cash Offer service and HubSpot, on 127.0.0.1: `npm run sandbox`
// and the daemon's embedded default both start them through here.
export async function startSimulators(options: SimulatorOptions = {}): Promise<Simulators> {
  const accounts = loadSandboxAccounts();
  const cashOffer = await startCashOfferSandbox({
    port: options.cashOfferPort ?? Number(process.env.SANDBOX_PORT ?? 4010),
    accounts,
    autopilot: options.autopilot ?? process.env.SANDBOX_AUTOPILOT === '1',
  });
  let hubspot: HubSpotEmulator;
  try {
    hubspot = await startHubSpotEmulator({ port: options.hubspotPort });
  } catch (error) {
    await cashOffer.close();
    throw error;
  }
  if (options.log !== false) {
    const logger = new Logger('Simulators');
    logger.log(`Cash Offer service sandbox on ${cashOffer.baseUrl}`);
    logger.log('  accepted keys (header "Authorization: <key>"):');
    for (const a of accounts) logger.log(`    ${a.role.padEnd(13)} ${a.key}  (${a.email})`);
    logger.log(`  control API: ${cashOffer.controlUrl}   OpenAPI: ${cashOffer.baseUrl}/openapi.json`);
    logger.log(
      `HubSpot emulator on ${hubspot.url}; private-app token "${hubspot.token}"; control API ${hubspot.url}/__control`,
    );
  }
  return {
    cashOffer,
    hubspot,
    close: async () => {
      await Promise.all([cashOffer.close(), hubspot.close()]);
    },
  };
}
