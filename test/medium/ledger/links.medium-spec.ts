import { LedgerFixture, ledgerEngines, openTestLedger } from '../../support/ledger-fixture';

describe.each(ledgerEngines())('LinkRepository (%s)', (engine) => {
  let f: LedgerFixture;
  beforeEach(async () => {
    f = await openTestLedger(engine);
  });
  afterEach(async () => {
    await f.cleanup();
  });

  it('creates links, then reports unchanged for equal hashes and changed for new ones', async () => {
    const first = await f.ledger.links.upsertLinks('b1', 'offer', [
      { remoteId: 'r1', crmId: 'c1', contentHash: 'h1' },
      { remoteId: 'r2', crmId: 'c2', contentHash: 'h2' },
    ]);
    expect(first).toEqual([
      { remoteId: 'r1', outcome: 'created' },
      { remoteId: 'r2', outcome: 'created' },
    ]);
    f.clock.advance(60_000);
    const second = await f.ledger.links.upsertLinks('b1', 'offer', [
      { remoteId: 'r1', crmId: 'c1', contentHash: 'h1' },
      { remoteId: 'r2', crmId: 'c2', contentHash: 'h2-new' },
      { remoteId: 'r3', crmId: 'c3', contentHash: 'h3' },
    ]);
    expect(second.map((o) => o.outcome)).toEqual(['unchanged', 'changed', 'created']);
    const r1 = await f.ledger.links.find('b1', 'offer', 'r1');
    const r2 = await f.ledger.links.find('b1', 'offer', 'r2');
    expect(r1?.updatedAt).toEqual(new Date('2026-03-01T12:00:00.000Z'));
    expect(r2).toMatchObject({ contentHash: 'h2-new', state: 'active' });
    expect(r2?.createdAt).toEqual(new Date('2026-03-01T12:00:00.000Z'));
    expect(r2?.updatedAt).toEqual(new Date('2026-03-01T12:01:00.000Z'));
  });

  it('finds a link both ways and keeps brokerages and kinds apart', async () => {
    await f.ledger.links.upsertLinks('b1', 'offer', [{ remoteId: 'r1', crmId: 'c1', contentHash: 'h' }]);
    await f.ledger.links.upsertLinks('b2', 'offer', [{ remoteId: 'r1', crmId: 'c9', contentHash: 'h' }]);
    await f.ledger.links.upsertLinks('b1', 'listing', [{ remoteId: 'r1', crmId: 'c1', contentHash: 'h' }]);
    expect((await f.ledger.links.findByCrmId('b1', 'offer', 'c1'))?.remoteId).toBe('r1');
    expect((await f.ledger.links.find('b2', 'offer', 'r1'))?.crmId).toBe('c9');
    expect(await f.ledger.links.findByCrmId('b2', 'offer', 'c1')).toBeNull();
    expect(await f.ledger.links.find('b1', 'offer', 'missing')).toBeNull();
  });

  it('names the links first written before the latest one holding a fragment, whatever was rewritten since', async () => {
    const write = (remoteId: string, content: string) =>
      f.ledger.links.upsertLinks('b1', 'counter', [
        { remoteId, crmId: `c-${remoteId}`, contentHash: content },
      ]);
    await write('o1', '{"l":"active"}');
    await write('o2', '{"l":"countered"}');
    await write('o3', '{"l":"active"}');
    await f.ledger.links.upsertLinks('b2', 'counter', [
      { remoteId: 'o9', crmId: 'x', contentHash: '{"l":"countered"}' },
    ]);
    // A rewrite keeps the link's place: o1 was first written before o2.
    await write('o1', '{"s":"rejected","l":"active"}');
    const before = (ids: string[]) =>
      f.ledger.links.writtenBeforeContent('b1', 'counter', ids, '"l":"countered"');
    expect(await before(['o1', 'o3', 'missing'])).toEqual(new Set(['o1']));
    expect(await f.ledger.links.writtenBeforeContent('b1', 'counter', ['o1'], '"l":"none"')).toEqual(
      new Set(),
    );
    expect(await before([])).toEqual(new Set());
  });

  it('classifies without writing, in the same words as the upsert', async () => {
    await f.ledger.links.upsertLinks('b1', 'offer', [
      { remoteId: 'r1', crmId: 'c1', contentHash: 'h1' },
      { remoteId: 'r2', crmId: 'c2', contentHash: 'h2' },
    ]);
    const classes = await f.ledger.links.classify('b1', 'offer', [
      { remoteId: 'r1', contentHash: 'h1' },
      { remoteId: 'r2', contentHash: 'other' },
      { remoteId: 'r3', contentHash: 'h3' },
    ]);
    expect([...classes.entries()]).toEqual([
      ['r1', 'unchanged'],
      ['r2', 'changed'],
      ['r3', 'new'],
    ]);
    expect(await f.ledger.links.find('b1', 'offer', 'r3')).toBeNull();
  });

  it('forgets what links vouch for before a CRM write: the next pass writes those records again', async () => {
    await f.ledger.links.upsertLinks('b1', 'offer', [
      { remoteId: 'r1', crmId: 'c1', contentHash: 'h1' },
      { remoteId: 'r2', crmId: 'c2', contentHash: 'h2' },
    ]);
    // A writer about to write r1 is killed after its CRM write, before its own upsertLinks.
    await f.ledger.links.forgetContent('b1', 'offer', ['r1']);
    const classes = await f.ledger.links.classify('b1', 'offer', [
      { remoteId: 'r1', contentHash: 'h1' },
      { remoteId: 'r2', contentHash: 'h2' },
    ]);
    expect([...classes.entries()]).toEqual([
      ['r1', 'changed'],
      ['r2', 'unchanged'],
    ]);
    expect(await f.ledger.links.find('b1', 'offer', 'r1')).toMatchObject({ crmId: 'c1', state: 'active' });
  });

  it('links records before their first write to a placeholder vouching for nothing, leaving existing links alone', async () => {
    await f.ledger.links.upsertLinks('b1', 'listing', [{ remoteId: 'r1', crmId: 'c1', contentHash: 'h1' }]);

    await f.ledger.links.linkBeforeCreate('b1', 'listing', [
      { remoteId: 'r1', crmId: 'unconfirmed:r1', runId: 7 },
      { remoteId: 'r2', crmId: 'unconfirmed:r2', runId: 7 },
    ]);

    expect(await f.ledger.links.find('b1', 'listing', 'r1')).toMatchObject({
      crmId: 'c1',
      contentHash: 'h1',
    });
    expect(await f.ledger.links.find('b1', 'listing', 'r2')).toMatchObject({
      crmId: 'unconfirmed:r2',
      contentHash: '',
      state: 'active',
      lastSeenRunId: 7,
    });
    const [written] = await f.ledger.links.upsertLinks('b1', 'listing', [
      { remoteId: 'r2', crmId: 'c2', contentHash: 'h2' },
    ]);
    expect(written.outcome).toBe('changed');
    expect(await f.ledger.links.find('b1', 'listing', 'r2')).toMatchObject({
      crmId: 'c2',
      contentHash: 'h2',
    });
  });

  it('reopens links before a rewrite: open, seen by the run, vouching for nothing', async () => {
    await f.ledger.links.upsertLinks('b1', 'listing', [{ remoteId: 'r1', crmId: 'c1', contentHash: 'h1' }]);
    await f.ledger.links.markGone('b1', 'listing', ['r1']);

    await f.ledger.links.reopenUnvouched('b1', 'listing', ['r1'], 9);

    expect(await f.ledger.links.find('b1', 'listing', 'r1')).toMatchObject({
      crmId: 'c1',
      contentHash: '',
      state: 'active',
      lastSeenRunId: 9,
    });
    expect(await f.ledger.links.listNotSeenIn('b1', 'listing', 10)).toHaveLength(1);
  });

  it('keeps when the written data was read, and calls an older read stale', async () => {
    const t = (s: number) => new Date(f.clock.nowMs() - 60_000 + s * 1000);
    await f.ledger.links.upsertLinks('b1', 'offer', [
      { remoteId: 'r1', crmId: 'c1', contentHash: 'h1', readAt: t(10) },
      { remoteId: 'r2', crmId: 'c2', contentHash: 'h2' },
    ]);
    expect((await f.ledger.links.find('b1', 'offer', 'r1'))?.readAt).toEqual(t(10));
    const classes = await f.ledger.links.classify('b1', 'offer', [
      { remoteId: 'r1', contentHash: 'h1-old', readAt: t(9) },
      { remoteId: 'r2', contentHash: 'h2-old', readAt: t(9) },
    ]);
    // r2's read time is unknown: no order, as before read times were kept.
    expect([...classes.entries()]).toEqual([
      ['r1', 'stale'],
      ['r2', 'changed'],
    ]);
    const same = await f.ledger.links.classify('b1', 'offer', [
      { remoteId: 'r1', contentHash: 'h1', readAt: t(10) },
      { remoteId: 'r2', contentHash: 'h2', readAt: t(11) },
    ]);
    expect([...same.values()]).toEqual(['unchanged', 'unchanged']);
  });

  it('does not trust a read time later than now (another clock ahead, or this one set back)', async () => {
    await f.ledger.links.upsertLinks('b1', 'offer', [
      { remoteId: 'r1', crmId: 'c1', contentHash: 'h1', readAt: new Date(f.clock.nowMs() + 5000) },
    ]);
    const classes = await f.ledger.links.classify('b1', 'offer', [
      { remoteId: 'r1', contentHash: 'h1-new', readAt: f.clock.now() },
    ]);
    expect(classes.get('r1')).toBe('changed');
    await f.ledger.links.noteRead('b1', 'offer', ['r1'], f.clock.now());
    expect((await f.ledger.links.find('b1', 'offer', 'r1'))?.readAt).toEqual(f.clock.now());
  });

  it('moves read times forward only: an unchanged record noted, a forgotten one raised to its writer', async () => {
    const t = (s: number) => new Date(f.clock.nowMs() - 60_000 + s * 1000);
    await f.ledger.links.upsertLinks('b1', 'offer', [
      { remoteId: 'r1', crmId: 'c1', contentHash: 'h1', readAt: t(10) },
      { remoteId: 'r2', crmId: 'c2', contentHash: 'h2', readAt: t(10) },
      { remoteId: 'r3', crmId: 'c3', contentHash: 'h3' },
    ]);
    await f.ledger.links.noteRead('b1', 'offer', ['r1', 'r3'], t(20));
    await f.ledger.links.noteRead('b1', 'offer', ['r1'], t(15));
    expect((await f.ledger.links.find('b1', 'offer', 'r1'))?.readAt).toEqual(t(20));
    expect((await f.ledger.links.find('b1', 'offer', 'r3'))?.readAt).toEqual(t(20));
    // A writer of data read at 30 is killed after its CRM write: the record may show that data, so a
    // writer of data read at 25 is held back, and one of data read at 31 writes it again.
    await f.ledger.links.forgetContent('b1', 'offer', ['r2'], t(30));
    expect(await f.ledger.links.find('b1', 'offer', 'r2')).toMatchObject({ contentHash: '', readAt: t(30) });
    const classes = await f.ledger.links.classify('b1', 'offer', [
      { remoteId: 'r2', contentHash: 'h2', readAt: t(25) },
    ]);
    expect(classes.get('r2')).toBe('stale');
    const later = await f.ledger.links.classify('b1', 'offer', [
      { remoteId: 'r2', contentHash: 'h2', readAt: t(31) },
    ]);
    expect(later.get('r2')).toBe('changed');
    // A write that does not say when its data was read leaves the read time unknown.
    await f.ledger.links.upsertLinks('b1', 'offer', [{ remoteId: 'r2', crmId: 'c2', contentHash: 'h2b' }]);
    expect((await f.ledger.links.find('b1', 'offer', 'r2'))?.readAt).toBeNull();
  });

  it('refuses to link one CRM record to two remote records, and keeps the batch out', async () => {
    await f.ledger.links.upsertLinks('b1', 'offer', [{ remoteId: 'r1', crmId: 'c1', contentHash: 'h' }]);
    await expect(
      f.ledger.links.upsertLinks('b1', 'offer', [
        { remoteId: 'r5', crmId: 'c5', contentHash: 'h' },
        { remoteId: 'r2', crmId: 'c1', contentHash: 'h' },
      ]),
    ).rejects.toThrow(/offer links of brokerage b1.*CRM id/);
    expect(await f.ledger.links.find('b1', 'offer', 'r5')).toBeNull();
  });

  it('appends the history entries of written records with their links, and none with a batch kept out', async () => {
    const shown = (record: string) => ({
      brokerageId: 'b1',
      record,
      source: 'daemon' as const,
      kind: 'record_shown',
      summary: `CRM record of ${record} created`,
      outcome: 'created',
    });
    await f.ledger.links.upsertLinks(
      'b1',
      'offer',
      [{ remoteId: 'r1', crmId: 'c1', contentHash: 'h' }],
      [shown('offer:r1')],
    );
    expect((await f.ledger.history.list('offer:r1')).map((e) => e.kind)).toEqual(['record_shown']);
    await expect(
      f.ledger.links.upsertLinks(
        'b1',
        'offer',
        [{ remoteId: 'r2', crmId: 'c1', contentHash: 'h' }],
        [shown('offer:r2')],
      ),
    ).rejects.toThrow(/CRM id/);
    expect(await f.ledger.history.list('offer:r2')).toEqual([]);
    expect((await f.ledger.history.verify('b1')).ok).toBe(true);
  });

  it('tracks which links a run saw, lists the ones it did not, and marks them gone', async () => {
    const run1 = await f.ledger.runs.start('b1', 'marketplace');
    await f.ledger.links.upsertLinks(
      'b1',
      'listing',
      ['r1', 'r2', 'r3'].map((id) => ({ remoteId: id, crmId: `c-${id}`, contentHash: 'h', runId: run1.id })),
    );
    const run2 = await f.ledger.runs.start('b1', 'marketplace');
    // r1 unchanged but seen through the upsert; r2 seen through markSeen; r3 not seen.
    await f.ledger.links.upsertLinks('b1', 'listing', [
      { remoteId: 'r1', crmId: 'c-r1', contentHash: 'h', runId: run2.id },
    ]);
    expect(await f.ledger.links.markSeen('b1', 'listing', ['r2'], run2.id)).toBe(1);
    const notSeen = await f.ledger.links.listNotSeenIn('b1', 'listing', run2.id);
    expect(notSeen.map((l) => l.remoteId)).toEqual(['r3']);

    f.clock.advance(1000);
    expect(await f.ledger.links.markGone('b1', 'listing', ['r3'])).toBe(1);
    expect(await f.ledger.links.find('b1', 'listing', 'r3')).toMatchObject({ state: 'gone' });
    expect(await f.ledger.links.listNotSeenIn('b1', 'listing', run2.id)).toEqual([]);

    // A gone listing that comes back has to be written again.
    const classes = await f.ledger.links.classify('b1', 'listing', [{ remoteId: 'r3', contentHash: 'h' }]);
    expect(classes.get('r3')).toBe('changed');
    const back = await f.ledger.links.upsertLinks('b1', 'listing', [
      { remoteId: 'r3', crmId: 'c-r3', contentHash: 'h' },
    ]);
    expect(back[0].outcome).toBe('changed');
    expect(await f.ledger.links.find('b1', 'listing', 'r3')).toMatchObject({ state: 'active' });
  });

  it('upserts batches larger than one statement and repeated ids in one batch', async () => {
    const items = Array.from({ length: 2500 }, (_, i) => ({
      remoteId: `r${i}`,
      crmId: `c${i}`,
      contentHash: 'h',
    }));
    const outcomes = await f.ledger.links.upsertLinks('b1', 'offer', [
      ...items,
      { ...items[0], contentHash: 'x' },
    ]);
    expect(outcomes).toHaveLength(2501);
    expect(outcomes.every((o) => o.outcome === 'created')).toBe(true);
    expect((await f.ledger.links.find('b1', 'offer', 'r0'))?.contentHash).toBe('x');
    const again = await f.ledger.links.upsertLinks('b1', 'offer', items.slice(1));
    expect(again.every((o) => o.outcome === 'unchanged')).toBe(true);
    const count: { n: number }[] = await f.ledger.dataSource.query('SELECT COUNT(*) AS n FROM links');
    expect(Number(count[0].n)).toBe(2500); // PostgreSQL returns COUNT as a bigint string
  });
});
