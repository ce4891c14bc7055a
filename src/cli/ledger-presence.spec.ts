import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ledgerPresence } from './ledger-presence';

describe('ledgerPresence', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cos-presence-'));
  const missing = join(dir, 'ledgr.sqlite');
  const commands = ['status', 'sync', 'setup-crm'];
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('uses an existing ledger file', () => {
    const present = join(dir, 'ledger.sqlite');
    writeFileSync(present, '');
    expect(ledgerPresence(present, ['status'], commands)).toEqual({ use: 'file' });
  });

  it('refuses a ledger command on a missing file, naming LEDGER_PATH', () => {
    const answer = ledgerPresence(missing, ['status'], commands);
    expect(answer.use).toBe('none');
    expect(answer.use === 'none' && answer.problem).toMatch(/no ledger at .*ledgr\.sqlite \(LEDGER_PATH\)/);
    expect(ledgerPresence(missing, ['sync', '--once'], commands).use).toBe('none');
  });

  it('lets register-webhooks make the ledger, as a first deployment registers before the first start', () => {
    expect(ledgerPresence(missing, ['register-webhooks'], [...commands, 'register-webhooks'])).toEqual({
      use: 'create',
    });
  });

  it('runs setup-crm, sync --dry-run and help on an in-memory ledger, leaving no file', () => {
    for (const argv of [['setup-crm'], ['sync', '--dry-run'], ['--help'], ['status', '--help'], []])
      expect([argv.join(' '), ledgerPresence(missing, argv, commands).use]).toEqual([
        argv.join(' '),
        'memory',
      ]);
  });
});
