import type { ConfigService } from '../config/config.service';
import type { PauseRepository } from '../ledger';
import { JobPauseService, MAX_PAUSE_REASON, UnknownTargetError } from './job-pause.service';

describe('JobPauseService.pause', () => {
  it('refuses a reason longer than a line, saying how long it may be, and pauses nothing', async () => {
    const pause = jest.fn();
    const service = new JobPauseService(
      { pause } as unknown as PauseRepository,
      { get: () => ({ id: 'acme' }) } as unknown as ConfigService,
    );
    const error = await service.pause('acme', undefined, 'x'.repeat(10_000)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnknownTargetError);
    expect((error as Error).message).toContain(`at most ${MAX_PAUSE_REASON}`);
    expect(pause).not.toHaveBeenCalled();
  });
});
