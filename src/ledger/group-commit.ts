import { EntityManager } from 'typeorm';
import { LedgerTransactions } from './ledger-transactions';

interface Waiting<I, R> {
  item: I;
  resolve: (result: R) => void;
  reject: (error: unknown) => void;
}

// Group commit: items submitted while a batch is being written go together into the next
// transaction, so N concurrent callers share one fsync instead of paying for N. A caller still gets
// its answer only after the transaction holding its item has committed (durable on return). If the
// shared transaction fails, every item of it is retried alone, so one bad item fails only itself.
export class GroupCommitter<I, R> {
  private waiting: Waiting<I, R>[] = [];
  private flushing = false;

  constructor(
    private readonly tx: LedgerTransactions,
    private readonly write: (manager: EntityManager, item: I) => Promise<R>,
    private readonly maxBatch = 500,
  ) {}

  submit(item: I): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      if (this.flushing) return;
      this.flushing = true;
      // Waits for the rest of this event-loop turn, so every caller whose request arrived with this
      // one (e.g. a burst of webhook deliveries read in one I/O phase) joins the same fsync.
      setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    this.flushing = true;
    let batch: Waiting<I, R>[] = [];
    this.tx
      .run(async (m) => {
        // Taken when the transaction starts, so it holds everything that arrived while queued.
        batch = this.waiting.splice(0, this.maxBatch);
        const results: R[] = [];
        for (const entry of batch) results.push(await this.write(m, entry.item));
        return results;
      })
      .then(
        (results) => batch.forEach((entry, i) => entry.resolve(results[i])),
        (error: unknown) => {
          if (batch.length === 0) {
            // The transaction never started (e.g. called from inside another one): fail the callers.
            batch = this.waiting.splice(0);
            batch.forEach((entry) => entry.reject(error));
            return;
          }
          for (const entry of batch)
            this.tx.run((m) => this.write(m, entry.item)).then(entry.resolve, entry.reject);
        },
      )
      .finally(() => {
        this.flushing = false;
        if (this.waiting.length > 0) this.flush();
      })
      .catch(() => undefined);
  }
}
