// Writes through the ledger's repositories as fast as it can and prints one line per write that has
// COMMITTED (stdout to a pipe is synchronous on Linux, so a printed line was committed first). The
// crash test kills it with SIGKILL and checks every printed write is in the file.
//   node dist/test/support/ledger-crash-child.js <database path> <generation>
import { Link } from '../../src/ledger/entities';
import { openLedger } from '../../src/ledger/ledger';

function report(...parts: (string | number)[]): void {
  process.stdout.write(`${parts.join(' ')}\n`);
}

async function main(): Promise<void> {
  const [databasePath, generation] = process.argv.slice(2);
  const ledger = await openLedger({ databasePath });
  // What the daemon does at start: put right what the previous (killed) process left half-done.
  const recovered = await ledger.recoverInterrupted();
  report('ready', recovered.outbox, recovered.inbox, recovered.runs);

  const stream = 'crash-test';
  let page = Number((await ledger.cursors.get('b1', stream)) ?? '0');
  for (let i = 0; ; i += 1) {
    const key = `g${generation}-${i}`;
    // Outbox: enqueue, re-enqueue the same key (must not duplicate), walk it to done.
    const { command } = await ledger.outbox.enqueue({
      brokerageId: 'b1',
      idempotencyKey: key,
      operation: 'create_offer_request',
      recordRef: key,
      payload: { i },
    });
    report('outbox', key, command.id);
    await ledger.outbox.enqueue({
      brokerageId: 'b1',
      idempotencyKey: key,
      operation: 'create_offer_request',
      recordRef: key,
      payload: { i },
    });
    await ledger.outbox.markSending(command.id);
    report('sending', command.id);
    await ledger.outbox.complete(command.id, { remoteId: `OR-${key}` });
    report('done', command.id);

    // Inbox: the same event delivered twice in parallel.
    const events = await Promise.all(
      [0, 1].map(() =>
        ledger.inbox.storeIfNew({
          brokerageId: 'b1',
          dedupeKey: key,
          eventType: 'new_offer',
          payload: `{"i":${i}}`,
        }),
      ),
    );
    report('inbox', key, events[0].id);

    // Links: a batch of 20.
    const items = Array.from({ length: 20 }, (_, j) => ({
      remoteId: `${key}-${j}`,
      crmId: `crm-${key}-${j}`,
      contentHash: 'h',
    }));
    await ledger.links.upsertLinks('b1', 'offer', items);
    report('links', key, items.length);

    // A page: its links and the cursor move together.
    page += 1;
    const pageNumber = page;
    await ledger.cursors.commitPage('b1', stream, String(pageNumber), async (m) => {
      for (let j = 0; j < 5; j += 1) {
        const now = new Date();
        await m.insert(Link, {
          brokerageId: 'b1',
          kind: 'page',
          remoteId: `page-${pageNumber}-${j}`,
          crmId: `page-crm-${pageNumber}-${j}`,
          contentHash: 'h',
          createdAt: now,
          updatedAt: now,
        });
      }
    });
    report('cursor', pageNumber);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`crash child failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
