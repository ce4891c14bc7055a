import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedWebhook {
  headers: Record<string, string | string[] | undefined>;
  body: string;
  json: Record<string, unknown>;
  signatureValid: boolean;
}

// An HTTP receiver for the generic alert webhook: keeps every POST and checks its signature the way
// docs/operations.md tells a receiver to (HMAC-SHA256 of the raw body, hex, `sha256=` prefix).
export async function startWebhookReceiver(secret: string): Promise<{
  url: string;
  received: ReceivedWebhook[];
  // The next `n` answers are this status (the channel's retries are then seen).
  failNext(n: number, status: number): void;
  close(): Promise<void>;
}> {
  const received: ReceivedWebhook[] = [];
  let failures: { left: number; status: number } = { left: 0, status: 500 };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (failures.left > 0) {
        failures.left -= 1;
        res.writeHead(failures.status).end();
        return;
      }
      const body = Buffer.concat(chunks).toString('utf8');
      const expected = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
      const given = String(req.headers['x-cash-offer-sync-signature'] ?? '');
      received.push({
        headers: req.headers,
        body,
        json: JSON.parse(body) as Record<string, unknown>,
        signatureValid:
          given.length === expected.length && timingSafeEqual(Buffer.from(given), Buffer.from(expected)),
      });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/alerts`,
    received,
    failNext: (n, status) => (failures = { left: n, status }),
    close: () => new Promise((done) => server.close(() => done())),
  };
}

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
}

// A real SMTP server (smtp-server, from the nodemailer project) that keeps every message.
export async function startSmtpReceiver(): Promise<{
  url: string;
  mails: ReceivedMail[];
  close(): Promise<void>;
}> {
  const mails: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', () => done()));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    close: () => new Promise((done) => server.close(() => done())),
  };
}
