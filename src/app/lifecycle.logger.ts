import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';

// The daemon's last line: that it stopped, and why, after running jobs checkpointed and the
// listeners closed (the first line, "listening on ...", is written by daemon.ts).
@Injectable()
export class LifecycleLogger implements OnApplicationShutdown {
  private readonly logger = new Logger('Daemon');

  onApplicationShutdown(signal?: string): void {
    this.logger.log(`stopped${signal ? ` (${signal})` : ''}`);
  }
}

// Said the moment a stop signal arrives, before the jobs are asked to checkpoint.
export function logStopSignals(timeoutMs: number): void {
  const logger = new Logger('Daemon');
  for (const signal of ['SIGTERM', 'SIGINT'] as const)
    process.once(signal, () =>
      logger.log(`${signal}: stopping; running jobs get up to ${timeoutMs} ms to reach a checkpoint`),
    );
}
