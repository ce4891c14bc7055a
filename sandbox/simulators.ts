import { Logger } from '@nestjs/common';
import { loadSandboxAccounts, RunningCashOfferSandbox, startCashOfferSandbox } from './cash-offer';
import { startFollowUpBossEmulator, type FollowUpBossEmulator } from './followupboss';
import { HubSpotEmulator, startHubSpotEmulator } from './hubspot';

export interface Simulators {
  cashOffer: RunningCashOfferSandbox;
  hubspot: HubSpotEmulator;
  // Started when a port is asked for (npm run sandbox, a simulated Follow Up Boss brokerage).
  followUpBoss?: FollowUpBossEmulator;
  close(): Promise<void>;
}

export interface SimulatorOptions {
  cashOfferPort?: number;
  hubspotPort?: number;
  // The Follow Up Boss emulator runs only when given a port (0 = any free one).
  followUpBossPort?: number;
  autopilot?: boolean;
  log?: boolean;
}

// The bundled simulators of the Cash Offer service, HubSpot and Follow Up Boss, on 127.0.0.1: `npm run sandbox`
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
  let followUpBoss: FollowUpBossEmulator | undefined;
  try {
    if (options.followUpBossPort !== undefined)
      followUpBoss = await startFollowUpBossEmulator({ port: options.followUpBossPort });
  } catch (error) {
    await Promise.all([cashOffer.close(), hubspot.close()]);
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
    if (followUpBoss)
      logger.log(
        `Follow Up Boss emulator on ${followUpBoss.url}/v1; API key "${followUpBoss.apiKey}" (HTTP Basic user name), X-System "${followUpBoss.system}", X-System-Key "${followUpBoss.systemKey}"; control API ${followUpBoss.url}/__control`,
      );
  }
  return {
    cashOffer,
    hubspot,
    followUpBoss,
    close: async () => {
      await Promise.all([cashOffer.close(), hubspot.close(), followUpBoss?.close()]);
    },
  };
}
