import { describeStartupError } from './startup-error';

const settings = {
  adminHost: '127.0.0.1',
  adminPort: 3000,
  webhookHost: '0.0.0.0',
  webhookPort: 3001,
  ledgerPath: '/srv/cos/data/ledger.sqlite',
};

function errno(code: string, extra: Record<string, unknown> = {}): Error {
  return Object.assign(new Error(`listen ${code}`), { code, ...extra });
}

describe('describeStartupError', () => {
  it('names the port setting of the listener that could not bind', () => {
    expect(describeStartupError(errno('EADDRINUSE', { port: 3001 }), settings)).toBe(
      'WEBHOOK_PORT 3001 on 0.0.0.0 is already in use by another process. Stop that process or set WEBHOOK_PORT to a free port (and WEBHOOK_HOST if it should listen elsewhere).',
    );
    expect(describeStartupError(errno('EACCES', { port: 3000 }), settings)).toMatch(
      /^ADMIN_PORT 3000 needs privileges/,
    );
  });

  it('reads the port from the message when the error lost it (as Nest rethrows it)', () => {
    const error = Object.assign(new Error('listen EADDRINUSE: address already in use 127.0.0.1:3000'), {
      code: 'EADDRINUSE',
    });
    expect(describeStartupError(error, settings)).toMatch(
      /^ADMIN_PORT 3000 on 127\.0\.0\.1 is already in use/,
    );
  });

  it('names LEDGER_PATH when the ledger cannot be opened, and the hosts for a foreign address', () => {
    expect(describeStartupError(errno('EACCES', { path: '/srv/cos/data/ledger.sqlite' }), settings)).toMatch(
      /^The ledger \/srv\/cos\/data\/ledger\.sqlite cannot be opened or created .* Check LEDGER_PATH/,
    );
    expect(describeStartupError(errno('EADDRNOTAVAIL', { address: '10.9.9.9' }), settings)).toMatch(
      /10\.9\.9\.9 is not one of this machine's\. Check ADMIN_HOST/,
    );
  });

  it('falls back to the message', () => {
    expect(describeStartupError(new Error('something else'), settings)).toBe('something else');
  });
});
