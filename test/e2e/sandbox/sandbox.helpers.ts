import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { RunningCashOfferSandbox, SandboxAccount, startCashOfferSandbox } from '../../../sandbox/cash-offer';

// Answers are arbitrary JSON that the tests read field by field.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

export const AGENT: SandboxAccount = {
  key: 'e2e-agent',
  role: 'listing_agent',
  userId: 'aaaaaaaa-0000-4000-8000-000000000001',
  email: 'agent@e2e.example',
};
export const AGENT2: SandboxAccount = {
  key: 'e2e-agent-2',
  role: 'listing_agent',
  userId: 'aaaaaaaa-0000-4000-8000-000000000002',
  email: 'agent2@e2e.example',
};
export const PARTNER: SandboxAccount = {
  key: 'e2e-partner',
  role: 'partner',
  userId: 'aaaaaaaa-0000-4000-8000-000000000003',
  email: 'partner@e2e.example',
};
export const BUYER: SandboxAccount = {
  key: 'e2e-buyer',
  role: 'buyer',
  userId: 'aaaaaaaa-0000-4000-8000-000000000004',
  email: 'buyer@e2e.example',
};

export function startTestSandbox(): Promise<RunningCashOfferSandbox> {
  return startCashOfferSandbox({
    accounts: [AGENT, AGENT2, PARTNER, BUYER],
    webhookRetryDelaysMs: [20, 40, 80],
    webhookTimeoutMs: 300,
    pushDelayMs: 30,
  });
}

export interface Answer {
  status: number;
  headers: Headers;
  body: Json;
}

export async function call(
  sandbox: RunningCashOfferSandbox,
  method: string,
  path: string,
  body?: unknown,
  key: string | null = AGENT.key,
  extraHeaders: Record<string, string> = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...extraHeaders };
  if (key !== null) headers.authorization = key;
  if (body !== undefined && !headers['content-type']) headers['content-type'] = 'application/json';
  const url = path.startsWith('/__control') ? `${sandbox.url}${path}` : `${sandbox.baseUrl}${path}`;
  const res = await fetch(url, {
    method,
    headers,
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // keep the text
  }
  return { status: res.status, headers: res.headers, body: parsed };
}

export const control = (sandbox: RunningCashOfferSandbox, method: string, path: string, body?: unknown) =>
  call(sandbox, method, `/__control${path}`, body, null);

export function validProperty(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    StreetNumber: '1200',
    StreetName: 'Elm Street',
    PostalCity: 'Dallas',
    StateOrProvince: 'TX',
    PostalCode: '75201',
    MlsStatus: 'Active',
    BedroomsTotal: 3,
    ListAgentEmail: 'listing@e2e.example',
    ...overrides,
  };
}

export function createBody(
  overrides: { request?: object; property?: object; media?: string[] } = {},
): Record<string, unknown> {
  const body: Record<string, unknown> = {
    request: { offer_request_asking: 250_000, offer_request_external_id: 'crm-deal-1', ...overrides.request },
    property: validProperty(overrides.property as Record<string, unknown>),
  };
  if (overrides.media) body.media = overrides.media;
  return body;
}

// Creates a request as `key` and, unless told otherwise, approves it (status active).
export async function activeRequest(
  sandbox: RunningCashOfferSandbox,
  key = AGENT.key,
  overrides: Parameters<typeof createBody>[0] = {},
): Promise<Json> {
  const created = await call(sandbox, 'POST', '/offer-requests', createBody(overrides), key);
  if (created.status !== 201) throw new Error(`create failed: ${JSON.stringify(created.body)}`);
  const approved = await control(sandbox, 'POST', `/offer-requests/${created.body.offer_request_id}/approve`);
  if (approved.status !== 200) throw new Error(`approve failed: ${JSON.stringify(approved.body)}`);
  return created.body;
}

export async function buyerOffer(
  sandbox: RunningCashOfferSandbox,
  requestId: number,
  fields: object = {},
): Promise<Json> {
  const res = await control(sandbox, 'POST', `/offer-requests/${requestId}/offers`, {
    offer_amount: 200_000,
    ...fields,
  });
  if (res.status !== 201) throw new Error(`offer failed: ${JSON.stringify(res.body)}`);
  return res.body;
}

// A tiny webhook receiver: records every JSON body; `respond` decides each answer's status
// (or 'hang' to never answer).
export class WebhookReceiver {
  readonly received: Json[] = [];
  respond: (body: Json, n: number) => number | 'hang' = () => 200;
  private server?: Server;
  private readonly hanging = new Set<ServerResponse>();
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString());
        this.received.push(body);
        const answer = this.respond(body, this.received.length);
        if (answer === 'hang') {
          this.hanging.add(res);
          return;
        }
        res.writeHead(answer).end();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks/secret`;
    return this;
  }

  events(name: string): Json[] {
    return this.received.filter((e) => e.event === name);
  }

  async stop(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
