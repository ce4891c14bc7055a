// One-at-a-time FIFO queue. TypeORM shares a single connection on SQLite, so every unit of ledger
// work (a transaction, or a lone statement) waits its turn here instead of interleaving with another.
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();
  private pending = 0;

  run<T>(task: () => Promise<T>): Promise<T> {
    this.pending += 1;
    const result = this.tail.then(task);
    // The chain must survive a failed task; the caller still sees the failure through `result`.
    this.tail = result.then(
      () => this.settle(),
      () => this.settle(),
    );
    return result;
  }

  // Tasks queued or running; exposed for metrics and for close() to drain.
  get size(): number {
    return this.pending;
  }

  async drain(): Promise<void> {
    await this.tail;
  }

  private settle(): void {
    this.pending -= 1;
  }
}
