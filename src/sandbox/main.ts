import { Logger } from '@nestjs/common';
import { loadSandboxAccounts, startCashOfferSandbox } from './cash-offer';

// `npm run sandbox`: the bundled simulators on 127.0.0.1.
async function main(): Promise<void> {
  const logger = new Logger('Sandbox');
  const port = Number(process.env.SANDBOX_PORT ?? 4010);
  const accounts = loadSandboxAccounts();
  const cashOffer = await startCashOfferSandbox({
    port,
    accounts,
    autopilot: process.env.SANDBOX_AUTOPILOT === '1',
  });
  logger.log(`Cash Offer service sandbox listening on ${cashOffer.baseUrl}`);
  logger.log('  accepted keys (header "Authorization: <key>"):');
  for (const a of accounts) logger.log(`    ${a.role.padEnd(13)} ${a.key}  (${a.email})`);
  logger.log(`  control API: ${cashOffer.controlUrl}   OpenAPI: ${cashOffer.baseUrl}/openapi.json`);

  // The HubSpot emulator (src/sandbox/hubspot, startHubSpotEmulator) is started here once it exists.

  const stop = (): void => {
    logger.log('stopping the sandbox');
    void cashOffer.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((e: unknown) => {
  new Logger('Sandbox').error(e instanceof Error ? e.message : String(e));
  process.exit(1);
});
