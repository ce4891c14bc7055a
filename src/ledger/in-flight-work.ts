// Units of work running side by side (PostgreSQL's pooled connections), counted so that close() can
// wait for the last one before the pool goes away. The SQLite counterpart is SerialQueue.
export class InFlightWork {
  private readonly running = new Set<Promise<unknown>>();

  run<T>(task: () => Promise<T>): Promise<T> {
    const result = task();
    const settled = result.then(
      () => undefined,
      () => undefined,
    );
    this.running.add(settled);
    void settled.then(() => this.running.delete(settled));
    return result;
  }

  get size(): number {
    return this.running.size;
  }

  async drain(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running]);
  }
}
