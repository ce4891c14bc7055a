import type { LoggerService } from '@nestjs/common';
import { CronJob } from 'cron';
import { routeCronWarnings } from './cron-warnings.bridge';

function recordingLogger() {
  const lines: { level: string; message: unknown; context: unknown }[] = [];
  const record = (level: string) => (message: unknown, context?: unknown) => {
    lines.push({ level, message, context });
  };
  const logger: LoggerService = {
    log: record('log'),
    error: record('error'),
    warn: record('warn'),
    debug: record('debug'),
  };
  return { logger, lines };
}

function fakeConsole() {
  const written: unknown[][] = [];
  return { target: { warn: (...args: unknown[]) => written.push(args) } as unknown as Console, written };
}

describe('routeCronWarnings', () => {
  it("sends the cron library's late-tick notice to the log at debug, not to the console", () => {
    const { logger, lines } = recordingLogger();
    const { target, written } = fakeConsole();
    routeCronWarnings(logger, target);

    target.warn(
      "[Cron] Missed execution deadline by 4ms for job with cron expression '*/5 * * * * *'. Executing immediately.",
    );

    expect(written).toEqual([]);
    expect(lines).toEqual([
      {
        level: 'debug',
        message:
          "Missed execution deadline by 4ms for job with cron expression '*/5 * * * * *'. Executing immediately.",
        context: 'Cron',
      },
    ]);
  });

  it('logs a skipped tick as a warning', () => {
    const { logger, lines } = recordingLogger();
    const { target } = fakeConsole();
    routeCronWarnings(logger, target);

    target.warn(
      "[Cron] Missed execution deadline by 900ms for job with cron expression '* * * * *'. Skipping execution as it exceeds threshold (250ms).",
    );

    expect(lines.map((line) => line.level)).toEqual(['warn']);
  });

  it('leaves every other console warning where it was going', () => {
    const { logger, lines } = recordingLogger();
    const { target, written } = fakeConsole();
    routeCronWarnings(logger, target);

    target.warn('(node:1) ExperimentalWarning', 42);

    expect(written).toEqual([['(node:1) ExperimentalWarning', 42]]);
    expect(lines).toEqual([]);
  });

  it('wraps the console once; a second start only changes the logger', () => {
    const first = recordingLogger();
    const second = recordingLogger();
    const { target, written } = fakeConsole();
    routeCronWarnings(first.logger, target);
    routeCronWarnings(second.logger, target);

    target.warn('[Cron] Missed execution deadline by 1ms. Executing immediately.');
    target.warn('plain');

    expect(first.lines).toEqual([]);
    expect(second.lines).toHaveLength(1);
    expect(written).toEqual([['plain']]);
  });

  it('catches what the cron library itself writes when it starts a tick late', () => {
    const { logger, lines } = recordingLogger();
    const { target } = fakeConsole();
    routeCronWarnings(logger, target);
    const realWarn = console.warn;
    console.warn = target.warn;
    const job = CronJob.from({ cronTime: '0 0 1 1 *', onTick: () => undefined, start: false });
    try {
      // A busy event loop: by the time the library arms its timer, the tick was due 4 ms ago.
      jest.spyOn(job.cronTime, 'getTimeout').mockReturnValueOnce(-4);
      job.start();
    } finally {
      void job.stop();
      console.warn = realWarn;
    }
    expect(lines).toEqual([
      expect.objectContaining({
        level: 'debug',
        message: expect.stringMatching(/^Missed execution deadline by 4ms/),
      }),
    ]);
  });
});
