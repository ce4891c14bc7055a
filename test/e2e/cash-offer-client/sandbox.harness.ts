import { Logger } from '@nestjs/common';
import { CashOfferClient, CashOfferClientFactory, CashOfferClientOptions } from '../../../src/cash-offer';
import { CreateOfferRequestBody } from '../../../src/cash-offer/schema';
import { RunningCashOfferSandbox, startCashOfferSandbox } from '../../../sandbox/cash-offer';

export interface SandboxCall {
  method: string;
  path: string;
  status: number;
  at: string;
  fault?: string;
}

// The sandbox plus its control API and a way to build clients that are all closed at the end.
export class SandboxHarness {
  sandbox: RunningCashOfferSandbox;
  private readonly clients: CashOfferClient[] = [];
  private readonly factory = new CashOfferClientFactory();

  // Retry and breaker warnings are expected here; the key-leak test keeps them to inspect them.
  async start(options: { quietLogs?: boolean } = {}): Promise<this> {
    if (options.quietLogs ?? true) Logger.overrideLogger(false);
    this.sandbox = await startCashOfferSandbox({ port: 0, webhookRetryDelaysMs: [] });
    return this;
  }

  async stop(): Promise<void> {
    this.clients.forEach((c) => c.close());
    await this.sandbox?.close();
  }

  client(options: Partial<CashOfferClientOptions> = {}): CashOfferClient {
    const client = this.factory.create({
      brokerageId: 'e2e',
      baseUrl: this.sandbox.baseUrl,
      apiKey: this.sandbox.agentKey,
      timeoutMs: 2000,
      rateLimit: { max: 1000, intervalMs: 1000 },
      retry: { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 50 },
      ...options,
    });
    this.clients.push(client);
    return client;
  }

  async control<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(`${this.sandbox.controlUrl}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`control ${method} ${path} answered ${res.status}: ${text}`);
    return (text ? JSON.parse(text) : undefined) as T;
  }

  reset(): Promise<unknown> {
    return this.control('POST', '/reset');
  }

  faults(config: Record<string, unknown>): Promise<unknown> {
    return this.control('PUT', '/faults', config);
  }

  calls(): Promise<SandboxCall[]> {
    return this.control<SandboxCall[]>('GET', '/calls');
  }

  storedRequests(): Promise<Array<{ offer_request_id: number; media?: Array<{ url: string }> }>> {
    return this.control('GET', '/offer-requests');
  }
}

let counter = 0;
export function offerRequestBody(
  overrides: Partial<CreateOfferRequestBody['request']> = {},
): CreateOfferRequestBody {
  counter++;
  return {
    request: {
      offer_request_asking: 300_000 + counter,
      offer_request_external_id: `e2e-${counter}`,
      ...overrides,
    },
    property: {
      StreetNumber: String(100 + counter),
      StreetName: 'Congress Avenue',
      PostalCity: 'Austin',
      StateOrProvince: 'TX',
      PostalCode: '78701',
      MlsStatus: 'Active',
      BedroomsTotal: 3,
      ListAgentEmail: 'agent@brokerage.example',
    },
    media: ['https://photos.example.test/front.jpg'],
  };
}
