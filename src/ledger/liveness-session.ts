import { Logger } from '@nestjs/common';
import { Client } from 'pg';

// One database connection a worker holds open for as long as it lives, outside the ledger's pool
// (whose connections come and go), over which it writes its heartbeats: the heartbeat row then
// names this session's backend pid. When the worker's process dies, its operating system closes the
// connection and PostgreSQL ends the session within moments, so the rest of the fleet can tell a
// dead worker from a slow one without waiting out its missed beats (worker-liveness.ts).
// A session that breaks under a live worker (the server restarted, the network dropped) is opened
// again at its next beat, which records the new pid.
export class LivenessSession {
  private readonly logger = new Logger(LivenessSession.name);
  private current: Promise<Client> | undefined;
  // Clients whose connection broke while idle: the next statement opens a new one instead.
  private readonly broken = new WeakSet<Client>();
  private closed = false;

  constructor(private readonly url: string) {}

  // Runs one statement on the session, opening it first if it is not open (or broke).
  async query(text: string, params: unknown[]): Promise<void> {
    if (this.closed) throw new Error('the liveness session is closed');
    let opening = (this.current ??= this.open());
    let client = await this.settle(opening);
    if (this.broken.has(client)) {
      this.drop(opening, client);
      opening = this.current ??= this.open();
      client = await this.settle(opening);
    }
    try {
      await client.query(text, params);
    } catch (error) {
      this.drop(opening, client);
      throw error;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const client = await this.current?.catch(() => undefined);
    this.current = undefined;
    await client?.end().catch(() => undefined);
  }

  private async open(): Promise<Client> {
    // Bounded on both sides: a beat stuck on an unreachable server would stop every later beat.
    const client = new Client({
      connectionString: this.url,
      application_name: 'cash-offer-sync liveness',
      connectionTimeoutMillis: 10_000,
      statement_timeout: 30_000,
      query_timeout: 30_000,
      keepAlive: true,
    });
    // A connection that breaks while idle emits 'error', which unhandled would end the process.
    client.on('error', (error) => {
      this.broken.add(client);
      this.logger.warn(`the liveness session broke: ${error.message}; it is opened again at the next heartbeat`);
    });
    try {
      await client.connect();
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    return client;
  }

  // The client `opening` gives; a failed open is forgotten, so the next statement tries again.
  private async settle(opening: Promise<Client>): Promise<Client> {
    try {
      return await opening;
    } catch (error) {
      if (this.current === opening) this.current = undefined;
      throw error;
    }
  }

  private drop(opening: Promise<Client>, client: Client): void {
    if (this.current === opening) this.current = undefined;
    void client.end().catch(() => undefined);
  }
}
