import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DeliveryAttempt, FollowUpBossEmulator } from '../../sandbox/followupboss';
import { waitFor } from './wait-for';

export interface ApiAnswer {
  status: number;
  text: string;
  body: Record<string, unknown>;
  headers: Headers;
}

// The emulator's public API as an integration calls it: HTTP Basic with the API key, and the system
// headers unless `system` is false.
export async function fubApi(
  fub: FollowUpBossEmulator,
  method: string,
  path: string,
  body?: unknown,
  system = true,
): Promise<ApiAnswer> {
  const res = await fetch(`${fub.url}/v1${path}`, {
    method,
    headers: {
      authorization: `Basic ${Buffer.from(`${fub.apiKey}:`).toString('base64')}`,
      'content-type': 'application/json',
      ...(system ? { 'X-System': fub.system, 'X-System-Key': fub.systemKey } : {}),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return {
    status: res.status,
    text,
    body: (text ? JSON.parse(text) : {}) as Record<string, unknown>,
    headers: res.headers,
  };
}

export async function fubControl(
  fub: FollowUpBossEmulator,
  method: string,
  path: string,
  body?: unknown,
): Promise<unknown> {
  const res = await fetch(`${fub.url}/__control/${path}`, {
    method,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return res.json();
}

// The delivery log once nothing is pending and at least `count` attempts were made (polled, with a
// deadline).
export async function settledDeliveries(fub: FollowUpBossEmulator, count = 1): Promise<DeliveryAttempt[]> {
  return waitFor(
    async () => {
      const log = (await fubControl(fub, 'GET', 'webhooks/deliveries')) as {
        pending: number;
        deliveries: DeliveryAttempt[];
      };
      return log.pending === 0 && log.deliveries.length >= count && log.deliveries;
    },
    { what: `webhook deliveries to settle after at least ${count} attempts`, timeoutMs: 10_000 },
  );
}

export interface Received {
  body: string;
  signature: string | undefined;
}

export interface WebhookReceiver {
  url: string;
  received: Received[];
  // The statuses the receiver answers next, in order (0: never answers); 200 once they run out.
  answers: number[];
  close(): Promise<void>;
}

// A system's webhook endpoint on 127.0.0.1 that keeps every delivery's body and signature.
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: Received[] = [];
  const answers: number[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({
        body: Buffer.concat(chunks).toString('utf8'),
        signature: req.headers['fub-signature'] as string | undefined,
      });
      const status = answers.shift() ?? 200;
      if (status === 0) return; // never answers: the emulator times out
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    answers,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
