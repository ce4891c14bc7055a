import { Injectable } from '@nestjs/common';

// The waits of latency and hang faults; close() ends them so a closed sandbox leaves no timers.
@Injectable()
export class FaultDelays {
  private readonly waits = new Map<NodeJS.Timeout, () => void>();

  wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waits.delete(timer);
        resolve();
      }, ms);
      this.waits.set(timer, resolve);
    });
  }

  close(): void {
    for (const [timer, resolve] of this.waits) {
      clearTimeout(timer);
      resolve();
    }
    this.waits.clear();
  }
}
