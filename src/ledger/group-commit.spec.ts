import { EntityManager } from 'typeorm';
import { GroupCommitter } from './group-commit';
import { LedgerTransactions } from './ledger-transactions';

// A stand-in for the ledger's transactions: runs work one at a time and records each transaction.
class FakeTransactions {
  transactions: string[][] = [];
  private tail: Promise<unknown> = Promise.resolve();
  run<T>(work: (m: EntityManager) => Promise<T>): Promise<T> {
    const written: string[] = [];
    const manager = { written } as unknown as EntityManager;
    const result = this.tail.then(async () => {
      const value = await work(manager);
      this.transactions.push(written);
      return value;
    });
    this.tail = result.catch(() => undefined);
    return result;
  }
}

const write = async (m: EntityManager, item: string) => {
  if (item.startsWith('bad')) throw new Error(`cannot write ${item}`);
  (m as unknown as { written: string[] }).written.push(item);
  return item.toUpperCase();
};

describe('GroupCommitter', () => {
  it('writes items submitted together in one transaction and answers each caller', async () => {
    const tx = new FakeTransactions();
    const committer = new GroupCommitter(tx as unknown as LedgerTransactions, write);
    const results = await Promise.all(['a', 'b', 'c'].map((item) => committer.submit(item)));
    expect(results).toEqual(['A', 'B', 'C']);
    expect(tx.transactions).toEqual([['a', 'b', 'c']]);
  });

  it('retries the items of a failed batch alone, so only the bad one fails', async () => {
    const tx = new FakeTransactions();
    const committer = new GroupCommitter(tx as unknown as LedgerTransactions, write);
    const results = await Promise.allSettled(['a', 'bad-1', 'c'].map((item) => committer.submit(item)));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(tx.transactions).toEqual([['a'], ['c']]);
  });

  it('caps the batch size and keeps flushing until everything is written', async () => {
    const tx = new FakeTransactions();
    const committer = new GroupCommitter(tx as unknown as LedgerTransactions, write, 2);
    await Promise.all(['a', 'b', 'c', 'd', 'e'].map((item) => committer.submit(item)));
    expect(tx.transactions).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
  });
});
