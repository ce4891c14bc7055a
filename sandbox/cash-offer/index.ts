import { startSimulatorApp } from '../simulator-app';
import { loadSandboxAccounts } from './accounts.loader';
import { Autopilot } from './autopilot';
import { ExpirySweeper } from './expiry.sweeper';
import { FaultDelays } from './http/fault.delays';
import { SandboxAddress } from './http/sandbox.address';
import { SandboxExceptionFilter } from './http/sandbox-exception.filter';
import { CashOfferSandboxModule } from './http/sandbox.module';
import { API_PREFIX, CONTROL_PREFIX } from './http/sandbox.request';
import { MarketplaceService } from './marketplace.service';
import { MediaSigner } from './media.signer';
import { CashOfferSandboxOptions, RunningCashOfferSandbox } from './sandbox.types';
import { SpecReadings } from './spec-readings';
import { WebhookSender } from './webhook.sender';

export { DEFAULT_SPEC_READINGS, type SpecReadingValues } from './spec-readings';

export type {
  CallRecord,
  EmailRecord,
  WebhookDeliveryRecord,
  CashOfferSandboxOptions,
  RunningCashOfferSandbox,
  SandboxAccount,
  SandboxRole,
} from './sandbox.types';
export { DEFAULT_AGENT_KEY, DEFAULT_BUYER_KEY, loadSandboxAccounts } from './accounts.loader';
export type { FaultConfig, WebhookFaults } from './fault.injector';

const DEFAULT_RETRY_DELAYS_MS = [1000, 2000, 4000, 8000, 16000];

// Starts the in-memory Cash Offer service on 127.0.0.1 as a Nest application (docs/sandbox.md).
export async function startCashOfferSandbox(
  options: CashOfferSandboxOptions = {},
): Promise<RunningCashOfferSandbox> {
  const accounts = options.accounts ?? loadSandboxAccounts();
  const agent = accounts.find((a) => a.role === 'listing_agent');
  const buyer = accounts.find((a) => a.role === 'buyer');
  if (!agent || !buyer)
    throw new Error('the Cash Offer sandbox needs at least one listing_agent and one buyer account');

  // Its own Nest application and module graph, beside the daemon's when both run in one process.
  // Bodies are read as JSON after authentication and faults (JsonBodyInterceptor). Requests that hang
  // on purpose (faults) must not outlive the test that provoked them: short keep-alive.
  const { app, url, port } = await startSimulatorApp(
    CashOfferSandboxModule.register({
      accounts,
      agentKey: agent.key,
      webhookRetryDelaysMs: options.webhookRetryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS,
      webhookTimeoutMs: options.webhookTimeoutMs ?? 5000,
      pushDelayMs: options.pushDelayMs ?? 1000,
      specReadings: new SpecReadings(process.env.SANDBOX_SPEC_READINGS, options.specReadings),
    }),
    {
      host: options.host ?? '127.0.0.1',
      port: options.port ?? 0,
      keepAliveTimeoutMs: 5000,
      exceptionFilter: SandboxExceptionFilter,
    },
  );
  app.get(SandboxAddress).url = url;
  app.get(MediaSigner).setOrigin(url);
  const sweeper = app.get(ExpirySweeper);
  const autopilot = app.get(Autopilot);
  sweeper.start();
  if (options.autopilot) autopilot.set(true);

  let closing: Promise<void> | undefined;
  return {
    url,
    baseUrl: `${url}${API_PREFIX}`,
    controlUrl: `${url}${CONTROL_PREFIX}`,
    port,
    agentKey: agent.key,
    buyerKey: buyer.key,
    close(): Promise<void> {
      closing ??= (async () => {
        autopilot.stop();
        sweeper.stop();
        app.get(MarketplaceService).close();
        app.get(WebhookSender).close();
        app.get(FaultDelays).close();
        await app.close();
      })();
      return closing;
    },
  };
}
