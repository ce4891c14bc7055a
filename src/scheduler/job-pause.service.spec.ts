import type { ConfigService } from '../config/config.service';
import type { PauseRepository } from '../ledger';
import { JobPauseService, MAX_PAUSE_REASON, UnknownTargetError } from './job-pause.service';

describe('JobPauseService.pause', () => {
  it('refuses a reason longer than a line, saying how long it may be, and pauses nothing', async () => {
    const pause = jest.fn();
    const service = new JobPauseService(
      { pause } as unknown as PauseRepository,
      { isKnown: () => true } as unknown as ConfigService,
    );
    const error = await service.pause('acme', undefined, 'x'.repeat(10_000)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnknownTargetError);
    expect((error as Error).message).toContain(`at most ${MAX_PAUSE_REASON}`);
    expect(pause).not.toHaveBeenCalled();
  });

  it('keeps a reason on one line: newlines and terminal escapes become spaces', async () => {
    const pause = jest.fn((brokerageId: string, job: string, reason: string) =>
      Promise.resolve({ brokerageId, job, reason, pausedAt: '2026-11-25T12:00:00.000Z' }),
    );
    const service = new JobPauseService(
      { pause } as unknown as PauseRepository,
      { isKnown: () => true } as unknown as ConfigService,
    );
    await service.pause('acme', undefined, ' new key\n2026-11-25 ERROR forged\u001b[31m red\r\n');
    expect(pause.mock.calls[0][2]).toBe('new key 2026-11-25 ERROR forged [31m red');
  });

  // The daemon's environment holds the brokerage's secrets; the operator's shell may not.
  it('pauses a brokerage whose file is there but does not load here, and names it beside an unknown one', async () => {
    const pause = jest.fn((brokerageId: string, job: string, reason: string) =>
      Promise.resolve({ brokerageId, job, reason, pausedAt: '2026-11-25T12:00:00.000Z' }),
    );
    const config = {
      isKnown: (id: string) => id === 'acme',
      whyNotLoaded: (id: string) =>
        `no brokerage "${id}" is configured in cfg (known: acme (its file does not load))`,
    };
    const service = new JobPauseService(
      { pause } as unknown as PauseRepository,
      config as unknown as ConfigService,
    );
    await expect(service.pause('acme', undefined, 'key rotation')).resolves.toMatchObject({
      brokerageId: 'acme',
    });
    await expect(service.pause('acm')).rejects.toThrow('(known: acme (its file does not load))');
    expect(pause).toHaveBeenCalledTimes(1);
  });
});
