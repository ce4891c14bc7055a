import { Link } from '../../../src/ledger/entities';
import { LedgerFixture, ledgerEngines, openTestLedger } from '../../support/ledger-fixture';

describe.each(ledgerEngines())('CursorRepository (%s)', (engine) => {
  let f: LedgerFixture;
  beforeEach(async () => {
    f = await openTestLedger(engine);
  });
  afterEach(async () => {
    await f.cleanup();
  });

  const linkRow = (remoteId: string) => ({
    brokerageId: 'b1',
    kind: 'listing',
    remoteId,
    crmId: `c-${remoteId}`,
    contentHash: 'h',
    createdAt: f.clock.now(),
    updatedAt: f.clock.now(),
  });

  it('has no cursor until a page is committed, then moves per brokerage and stream', async () => {
    expect(await f.ledger.cursors.get('b1', 'marketplace')).toBeNull();
    await f.ledger.cursors.commitPage('b1', 'marketplace', '{"offset":100}');
    await f.ledger.cursors.commitPage('b1', 'marketplace', '{"offset":200}');
    await f.ledger.cursors.commitPage('b2', 'marketplace', '{"offset":10}');
    expect(await f.ledger.cursors.get('b1', 'marketplace')).toBe('{"offset":200}');
    expect(await f.ledger.cursors.get('b2', 'marketplace')).toBe('{"offset":10}');
    expect(await f.ledger.cursors.get('b1', 'offers')).toBeNull();
    expect(await f.ledger.cursors.reset('b1', 'marketplace')).toBe(true);
    expect(await f.ledger.cursors.get('b1', 'marketplace')).toBeNull();
  });

  it("commits the page's writes and the cursor together", async () => {
    await f.ledger.cursors.commitPage('b1', 'marketplace', '{"offset":1}', async (m) => {
      await m.insert(Link, linkRow('r1'));
    });
    expect(await f.ledger.cursors.get('b1', 'marketplace')).toBe('{"offset":1}');
    expect(await f.ledger.links.find('b1', 'listing', 'r1')).not.toBeNull();
  });

  it('rolls back a failing page and leaves the cursor where it was', async () => {
    await f.ledger.cursors.commitPage('b1', 'marketplace', '{"offset":1}');
    await expect(
      f.ledger.cursors.commitPage('b1', 'marketplace', '{"offset":2}', async (m) => {
        await m.insert(Link, linkRow('r2'));
        throw new Error('CRM mapping failed halfway through the page');
      }),
    ).rejects.toThrow('halfway');
    expect(await f.ledger.cursors.get('b1', 'marketplace')).toBe('{"offset":1}');
    expect(await f.ledger.links.find('b1', 'listing', 'r2')).toBeNull();
  });

  it('rolls back when the work itself breaks a constraint', async () => {
    await expect(
      f.ledger.cursors.commitPage('b1', 'marketplace', '{"offset":5}', async (m) => {
        await m.insert(Link, linkRow('r1'));
        await m.insert(Link, linkRow('r1'));
      }),
    ).rejects.toThrow(/UNIQUE|unique constraint/);
    expect(await f.ledger.cursors.get('b1', 'marketplace')).toBeNull();
    expect(await f.ledger.links.find('b1', 'listing', 'r1')).toBeNull();
  });
});
