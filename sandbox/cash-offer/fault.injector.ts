import { Injectable } from '@nestjs/common';
import { SeededRandom } from './seeded-random';
import { badRequest } from './sandbox.errors';

export interface WebhookFaults {
  duplicateRate?: number;
  maxDuplicates?: number;
  dropRate?: number;
  reorderWindowMs?: number;
}

export interface FaultConfig {
  match?: string;
  errorRate?: number;
  errorStatus?: number;
  rateLimit?: { requests: number; retryAfterSeconds: number };
  latencyMs?: number;
  hangAfterCommitMs?: number;
  // Share of matching calls whose answer `hangAfterCommitMs` holds (default: all of them).
  hangAfterCommitRate?: number;
  // Share of matching calls handled and stored, then answered `errorAfterCommitStatus` (default 502)
  // instead of their answer: a gateway whose upstream's answer was lost after the effect was stored.
  errorAfterCommitRate?: number;
  errorAfterCommitStatus?: number;
  dropConnectionRate?: number;
  webhooks?: WebhookFaults;
  seed?: number;
}

// What the fault layer decided for one API call, before it is handled.
export type FaultDecision =
  | { kind: 'drop' }
  // No retryAfterSeconds: a 429 with no Retry-After (the `rateLimit: per-second-bare` reading).
  | { kind: 'rate-limit'; retryAfterSeconds?: number }
  | { kind: 'error'; status: number }
  | { kind: 'pass'; latencyMs: number; hangAfterCommitMs: number; errorAfterCommitStatus?: number };

const PASS: FaultDecision = { kind: 'pass', latencyMs: 0, hangAfterCommitMs: 0 };

function checkRate(name: string, value: unknown): void {
  if (value !== undefined && (typeof value !== 'number' || value < 0 || value > 1))
    throw badRequest(`${name} must be a number between 0 and 1`);
}

function checkNonNegative(name: string, value: unknown): void {
  if (value !== undefined && (typeof value !== 'number' || !Number.isFinite(value) || value < 0))
    throw badRequest(`${name} must be a number of at least 0`);
}

function checkErrorStatus(name: string, value: unknown): void {
  if (value !== undefined && (!Number.isInteger(value) || (value as number) < 400 || (value as number) > 599))
    throw badRequest(`${name} must be an HTTP error status (400..599)`);
}

export function validateFaultConfig(body: unknown): FaultConfig {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw badRequest('the faults body must be a JSON object');
  const f = body as FaultConfig;
  if (f.match !== undefined && typeof f.match !== 'string')
    throw badRequest('match must be text like "POST /offers"');
  checkRate('errorRate', f.errorRate);
  checkRate('dropConnectionRate', f.dropConnectionRate);
  checkRate('hangAfterCommitRate', f.hangAfterCommitRate);
  checkRate('errorAfterCommitRate', f.errorAfterCommitRate);
  checkNonNegative('latencyMs', f.latencyMs);
  checkNonNegative('hangAfterCommitMs', f.hangAfterCommitMs);
  checkErrorStatus('errorStatus', f.errorStatus);
  checkErrorStatus('errorAfterCommitStatus', f.errorAfterCommitStatus);
  if (f.rateLimit !== undefined) {
    checkNonNegative('rateLimit.requests', f.rateLimit?.requests);
    checkNonNegative('rateLimit.retryAfterSeconds', f.rateLimit?.retryAfterSeconds);
  }
  if (f.seed !== undefined && !Number.isInteger(f.seed)) throw badRequest('seed must be an integer');
  if (f.webhooks !== undefined) {
    checkRate('webhooks.duplicateRate', f.webhooks?.duplicateRate);
    checkRate('webhooks.dropRate', f.webhooks?.dropRate);
    checkNonNegative('webhooks.maxDuplicates', f.webhooks?.maxDuplicates);
    checkNonNegative('webhooks.reorderWindowMs', f.webhooks?.reorderWindowMs);
  }
  return f;
}

// Faults switchable at run time through the control API; every random choice comes from one
// seedable generator so a failing run can be repeated.
@Injectable()
export class FaultInjector {
  readonly random = new SeededRandom();
  private config: FaultConfig = {};
  private rateLimitLeft = 0;

  current(): FaultConfig & { rateLimitRemaining: number } {
    return { ...this.config, rateLimitRemaining: this.rateLimitLeft };
  }

  set(config: FaultConfig): void {
    this.config = config;
    this.rateLimitLeft = config.rateLimit?.requests ?? 0;
    if (config.seed !== undefined) this.random.reseed(config.seed);
  }

  clear(): void {
    this.set({});
  }

  webhookFaults(): WebhookFaults | undefined {
    return this.config.webhooks;
  }

  // `match` is "METHOD /prefix", "/prefix" or "METHOD"; the path is the one under /api/v2.
  private matches(method: string, path: string): boolean {
    const match = this.config.match?.trim();
    if (!match) return true;
    const [first, second] = match.split(/\s+/);
    const wantMethod = first.startsWith('/') ? undefined : first.toUpperCase();
    const prefix = first.startsWith('/') ? first : second;
    if (wantMethod && wantMethod !== '*' && wantMethod !== method) return false;
    return !prefix || path.startsWith(prefix.replace(/\/+$/, '') || '/');
  }

  decide(method: string, path: string): FaultDecision {
    const c = this.config;
    if (!this.matches(method, path)) return PASS;
    if (this.random.chance(c.dropConnectionRate)) return { kind: 'drop' };
    if (this.rateLimitLeft > 0) {
      this.rateLimitLeft--;
      return { kind: 'rate-limit', retryAfterSeconds: c.rateLimit?.retryAfterSeconds ?? 1 };
    }
    if (this.random.chance(c.errorRate)) return { kind: 'error', status: c.errorStatus ?? 500 };
    const hangs = c.hangAfterCommitRate === undefined || this.random.chance(c.hangAfterCommitRate);
    const failsAfterCommit = this.random.chance(c.errorAfterCommitRate);
    return {
      kind: 'pass',
      latencyMs: c.latencyMs ?? 0,
      hangAfterCommitMs: hangs ? (c.hangAfterCommitMs ?? 0) : 0,
      ...(failsAfterCommit ? { errorAfterCommitStatus: c.errorAfterCommitStatus ?? 502 } : {}),
    };
  }
}
