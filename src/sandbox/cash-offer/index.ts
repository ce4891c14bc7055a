import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { loadSandboxAccounts } from './accounts.loader';
import { buildApiRouter } from './api.routes';
import { Autopilot } from './autopilot';
import { buildControlRouter } from './control.routes';
import { ExpirySweeper } from './expiry.sweeper';
import { FaultInjector } from './fault.injector';
import { API_PREFIX, CONTROL_PREFIX, createDispatcher } from './http/sandbox.server';
import { MarketplaceService } from './marketplace.service';
import { MediaSigner } from './media.signer';
import { Notifier } from './notifier';
import { OfferRequestService } from './offer-request.service';
import { OfferService } from './offer.service';
import { buildOpenApiDocument } from '../../cash-offer/schema/wire.openapi';
import { RequestLifecycle } from './request.lifecycle';
import { SandboxClock } from './sandbox.clock';
import { SandboxStore } from './sandbox.store';
import { CashOfferSandboxOptions, RunningCashOfferSandbox } from './sandbox.types';
import { WebhookSender } from './webhook.sender';

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

// Starts the in-memory Cash Offer service on 127.0.0.1 (docs/sandbox.md).
export async function startCashOfferSandbox(
  options: CashOfferSandboxOptions = {},
): Promise<RunningCashOfferSandbox> {
  const accounts = options.accounts ?? loadSandboxAccounts();
  const agent = accounts.find((a) => a.role === 'listing_agent');
  const buyer = accounts.find((a) => a.role === 'buyer');
  if (!agent || !buyer)
    throw new Error('the Cash Offer sandbox needs at least one listing_agent and one buyer account');

  const store = new SandboxStore(accounts);
  const clock = new SandboxClock();
  const faults = new FaultInjector();
  const signer = new MediaSigner(clock);
  const webhooks = new WebhookSender(store, clock, faults, {
    retryDelaysMs: options.webhookRetryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS,
    timeoutMs: options.webhookTimeoutMs ?? 5000,
  });
  const notifier = new Notifier(store, clock, webhooks);
  const lifecycle = new RequestLifecycle(store, clock, notifier);
  const requests = new OfferRequestService(store, clock, signer, lifecycle);
  const offers = new OfferService(store, clock, lifecycle, notifier);
  const marketplace = new MarketplaceService(store, clock, signer, lifecycle, options.pushDelayMs ?? 1000);
  const sweeper = new ExpirySweeper(store, clock, lifecycle, offers);
  const autopilot = new Autopilot(store, lifecycle, offers);

  // Built once the port is known (its server URL names it).
  const openApi: { document?: unknown } = {};
  const dispatcher = createDispatcher({
    store,
    clock,
    faults,
    signer,
    sweeper,
    api: buildApiRouter({ store, requests, offers, marketplace }),
    control: buildControlRouter({
      store,
      clock,
      faults,
      signer,
      lifecycle,
      requests,
      offers,
      autopilot,
      sweeper,
      agentKey: agent.key,
      onReset: () => {
        webhooks.cancelPending();
        marketplace.cancelPending();
      },
    }),
    openApi: () => openApi.document,
  });
  const server = createServer({ keepAlive: true }, dispatcher.handle);
  // Requests that hang on purpose (faults) must not outlive the test that provoked them.
  server.keepAliveTimeout = 5000;

  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  signer.setOrigin(url);
  openApi.document = buildOpenApiDocument(`${url}${API_PREFIX}`);
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
      closing ??= new Promise<void>((resolve) => {
        autopilot.stop();
        sweeper.stop();
        marketplace.close();
        webhooks.close();
        dispatcher.close();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
