import { pause, SoakFatalError } from './soak-http';

// A soak's scripted actors (the agent, the buyers, the market): one loop of ticks, paced, until
// stopped. The first error ends the loop and is thrown from `alive()`, which the soak calls at each
// step it waits on, so a broken actor stops the run instead of letting it settle on nothing.
export class SoakActors {
  private stopped = false;
  private error?: Error;
  private loop?: Promise<void>;

  constructor(private readonly who: string) {}

  start(tick: () => Promise<void>, pauseMs: number): void {
    this.loop ??= (async () => {
      while (!this.stopped) {
        try {
          await tick();
        } catch (error) {
          this.error = error instanceof Error ? error : new Error(String(error));
          return;
        }
        await pause(pauseMs);
      }
    })();
  }

  alive(): void {
    if (this.error) throw new SoakFatalError(`${this.who} failed: ${this.error.stack ?? this.error.message}`);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop;
  }
}
