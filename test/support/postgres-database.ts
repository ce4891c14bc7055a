import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

// A database of its own on the test PostgreSQL server (TEST_POSTGRES_URL, set by jest's global setup),
// so tests running in parallel workers never see each other's rows.
export interface TestPostgresDatabase {
  url: string;
  drop(): Promise<void>;
}

export function testPostgresUrl(): string | undefined {
  return process.env.TEST_POSTGRES_URL || undefined;
}

export async function createTestPostgresDatabase(prefix = 'ledger'): Promise<TestPostgresDatabase> {
  const serverUrl = testPostgresUrl();
  if (!serverUrl) throw new Error('TEST_POSTGRES_URL is not set (jest global setup starts PostgreSQL)');
  const name = `${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`;
  await admin(serverUrl, `CREATE DATABASE "${name}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => admin(serverUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`),
  };
}

async function admin(serverUrl: string, sql: string): Promise<void> {
  const client = new Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
