import { FaultInjector, validateFaultConfig } from './fault.injector';

describe('FaultInjector', () => {
  it('applies faults only to matching routes', () => {
    const faults = new FaultInjector();
    faults.set({ match: 'POST /offer-requests', errorRate: 1, errorStatus: 503 });
    expect(faults.decide('POST', '/offer-requests/prelim')).toEqual({ kind: 'error', status: 503 });
    expect(faults.decide('GET', '/offer-requests').kind).toBe('pass');
    expect(faults.decide('POST', '/offers').kind).toBe('pass');
    faults.set({ match: '/offers', latencyMs: 5 });
    expect(faults.decide('PATCH', '/offers')).toEqual({ kind: 'pass', latencyMs: 5, hangAfterCommitMs: 0 });
  });

  it('rate limits exactly the next N calls', () => {
    const faults = new FaultInjector();
    faults.set({ rateLimit: { requests: 2, retryAfterSeconds: 3 } });
    const kinds = [1, 2, 3].map(() => faults.decide('GET', '/offers').kind);
    expect(kinds).toEqual(['rate-limit', 'rate-limit', 'pass']);
  });

  it('holds or fails after commit only the share of calls their rates give', () => {
    const faults = new FaultInjector();
    faults.set({ seed: 7, hangAfterCommitMs: 900, hangAfterCommitRate: 0.5, errorAfterCommitRate: 0.3 });
    const decisions = Array.from({ length: 400 }, () => faults.decide('POST', '/counter-offers'));
    const held = decisions.filter((d) => d.kind === 'pass' && d.hangAfterCommitMs === 900).length;
    const failed = decisions.filter((d) => d.kind === 'pass' && d.errorAfterCommitStatus === 502).length;
    expect(held).toBeGreaterThan(150);
    expect(held).toBeLessThan(250);
    expect(failed).toBeGreaterThan(80);
    expect(failed).toBeLessThan(160);
    faults.set({ hangAfterCommitMs: 900, errorAfterCommitRate: 1, errorAfterCommitStatus: 504 });
    expect(faults.decide('PATCH', '/offers')).toEqual({
      kind: 'pass',
      latencyMs: 0,
      hangAfterCommitMs: 900,
      errorAfterCommitStatus: 504,
    });
  });

  it('repeats the same choices for the same seed', () => {
    const run = () => {
      const faults = new FaultInjector();
      faults.set({ seed: 99, errorRate: 0.5 });
      return Array.from({ length: 20 }, () => faults.decide('GET', '/offers').kind);
    };
    expect(run()).toEqual(run());
    expect(new Set(run())).toEqual(new Set(['error', 'pass']));
  });

  it('refuses invalid configurations with the key named', () => {
    expect(() => validateFaultConfig({ errorRate: 2 })).toThrow('errorRate must be a number between 0 and 1');
    expect(() => validateFaultConfig({ errorStatus: 200 })).toThrow('errorStatus');
    expect(() => validateFaultConfig({ webhooks: { dropRate: -1 } })).toThrow('webhooks.dropRate');
    expect(() => validateFaultConfig({ errorAfterCommitRate: 1.5 })).toThrow('errorAfterCommitRate');
    expect(() => validateFaultConfig({ errorAfterCommitStatus: 302 })).toThrow('errorAfterCommitStatus');
    expect(() => validateFaultConfig({ hangAfterCommitRate: -0.1 })).toThrow('hangAfterCommitRate');
  });
});
