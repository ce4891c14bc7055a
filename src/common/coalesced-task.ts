// One piece of work that many callers may ask for at once: it runs now, or, when asked while a run is
// under way, once more right after it, so every caller's ask is covered by a run that started after
// it. Each ask resolves when that covering run is done. Errors are handed to `onError`, never thrown.
export class CoalescedTask {
  private running: Promise<void> | null = null;
  private again = false;
  private closed = false;

  constructor(
    private readonly work: () => Promise<void>,
    private readonly onError: (error: unknown) => void,
  ) {}

  run(): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        await this.work().catch(this.onError);
      } while (this.again && !this.closed);
    })().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  // No new runs; resolves when the one under way is done.
  async close(): Promise<void> {
    this.closed = true;
    await this.running;
  }

  get isClosed(): boolean {
    return this.closed;
  }
}
