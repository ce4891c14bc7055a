import type { LoggerService } from '@nestjs/common';

// The `cron` library reports a tick that fired late straight to console.warn ("[Cron] Missed
// execution deadline by 4ms ... Executing immediately."), with no option to turn it off: its README
// (`threshold`, https://github.com/kelektiv/node-cron/issues/962) says "a warning will be printed to
// the console". A few ms late is routine on a busy host, so that line goes to the daemon's log at
// debug; a tick skipped for being later than the threshold is a warning. Either way it keeps the
// log's format and stays off stderr, which is for what stops the daemon.
const CRON_PREFIX = '[Cron] ';
const bridged = Symbol.for('cash-offer-sync.cron-warnings-bridged');

type BridgedConsole = Console & { [bridged]?: LoggerService };

export function routeCronWarnings(logger: LoggerService, target: Console = console): void {
  const bridgedConsole = target as BridgedConsole;
  // One bridge per process: a second daemon start (tests, the embedded demo) only swaps the logger.
  if (bridgedConsole[bridged]) {
    bridgedConsole[bridged] = logger;
    return;
  }
  bridgedConsole[bridged] = logger;
  const original = target.warn.bind(target);
  target.warn = (...args: unknown[]) => {
    const [message] = args;
    const current = bridgedConsole[bridged];
    if (typeof message !== 'string' || !message.startsWith(CRON_PREFIX) || !current) return original(...args);
    const text = message.slice(CRON_PREFIX.length);
    if (/Skipping execution/.test(text)) current.warn(text, 'Cron');
    else current.debug?.(text, 'Cron');
  };
}
