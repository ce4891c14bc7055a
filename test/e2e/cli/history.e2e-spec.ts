import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ManualClock } from '../../../src/common/clock';
import { openLedger } from '../../../src/ledger';
import {
  baseEnv,
  brokerageConfig,
  makeWorkspace,
  runCli,
  writeBrokerage,
  type Workspace,
} from '../daemon/daemon.fixtures';

const DAY_MS = 24 * 60 * 60 * 1000;

// `history` as the compiled CLI (`npm run build` first): a record's life, an export, the chain check.
describe('cli history', () => {
  let ws: Workspace;
  let env: NodeJS.ProcessEnv;

  beforeEach(async () => {
    ws = makeWorkspace();
    writeBrokerage(ws, brokerageConfig('acme'));
    env = baseEnv(ws, 0, ['acme']);
    const clock = new ManualClock(new Date('2026-03-01T12:00:00.000Z'));
    const ledger = await openLedger({ databasePath: ws.ledgerPath, clock });
    try {
      const entry = (brokerageId: string, record: string, kind: string, summary: string) => ({
        brokerageId,
        record,
        source: 'daemon' as const,
        kind,
        summary,
        detail: { amount: 360_000 },
        outcome: 'done',
      });
      await ledger.history.append([entry('acme', 'offer:7012', 'record_shown', 'created, "incoming"')]);
      clock.advance(DAY_MS);
      await ledger.history.append([
        entry('acme', 'offer:7012', 'command_sent', 'counter_offer sent: done'),
        entry('bolt', 'offer:9', 'record_shown', 'created'),
      ]);
      clock.advance(DAY_MS);
      await ledger.history.append([entry('acme', 'request:55', 'cascade', 'under contract')]);
      // Each brokerage's offer is shown on a CRM deal numbered 500 (their CRMs are apart); acme's
      // request 55 came from its listing deal 400.
      await ledger.links.upsertLinks('acme', 'offer', [{ remoteId: '7012', crmId: '500', contentHash: 'h' }]);
      await ledger.links.upsertLinks('bolt', 'offer', [{ remoteId: '9', crmId: '500', contentHash: 'h' }]);
      await ledger.links.upsertLinks('acme', 'offer_request', [
        { remoteId: '55', crmId: '400', contentHash: 'h' },
      ]);
    } finally {
      await ledger.close();
    }
  });
  afterEach(() => ws.cleanup());

  it('prints a record’s entries in order, as a table and as JSON', async () => {
    const table = await runCli(['history', '--record', 'offer:7012'], env);
    expect(table.code).toBe(0);
    const lines = table.stdout.trim().split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[0]).toBe('offer:7012 is also deal:500 (brokerage acme)');
    expect(lines[2]).toMatch(/acme\s+daemon\s+record_shown\s+created, "incoming"\s+done/);
    expect(lines[3]).toMatch(/command_sent\s+counter_offer sent: done/);
    const json = await runCli(['history', '--record', 'offer:7012', '--json'], env);
    const { entries } = JSON.parse(json.stdout) as { entries: { seq: number; detail: unknown }[] };
    expect(entries.map((e) => e.seq)).toEqual([1, 2]);
    expect(entries[0].detail).toEqual({ amount: 360_000 });
    const bad = await runCli(['history', '--record', '7012'], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--record takes offer:<id>, request:<id> or deal:<id>');
  });

  it('tells a record’s life under any of its names, each brokerage’s apart', async () => {
    const byDeal = await runCli(['history', '--record', 'deal:500'], env);
    expect(byDeal.code).toBe(0);
    const lines = byDeal.stdout.trim().split('\n');
    expect(lines[0]).toBe('deal:500 is also offer:7012 (brokerage acme), offer:9 (brokerage bolt)');
    expect(
      lines.slice(2).map((l) => /^\S+ \S+\s+(\w+)\s+daemon\s+(\w+)/.exec(l)?.slice(1).join(' ')),
    ).toEqual(['acme record_shown', 'acme command_sent', 'bolt record_shown']);
    const acmeOnly = await runCli(['history', '--record', 'deal:500', '--brokerage', 'acme', '--json'], env);
    expect(JSON.parse(acmeOnly.stdout)).toMatchObject({
      alsoNamed: [{ brokerageId: 'acme', record: 'offer:7012' }],
      entries: [{ record: 'offer:7012' }, { record: 'offer:7012' }],
    });
    const bolts = JSON.parse((await runCli(['history', '--record', 'offer:9', '--json'], env)).stdout) as {
      alsoNamed: unknown[];
      entries: { brokerageId: string }[];
    };
    expect(bolts.alsoNamed).toEqual([{ brokerageId: 'bolt', record: 'deal:500' }]);
    expect(bolts.entries.map((e) => e.brokerageId)).toEqual(['bolt']);
    const listing = await runCli(['history', '--record', 'deal:400'], env);
    expect(listing.stdout).toMatch(/^deal:400 is also request:55 \(brokerage acme\)\n/);
    expect(listing.stdout).toMatch(/cascade\s+under contract/);
  });

  it('exports a date range of one brokerage to a 0600 file, as CSV or JSON', async () => {
    const csv = join(ws.dir, 'history.csv');
    const answer = await runCli(
      ['history', '--export', csv, '--from', '2026-03-02', '--to', '2026-03-03', '--brokerage', 'acme'],
      env,
    );
    expect(answer.stderr).toBe('');
    expect(answer.code).toBe(0);
    expect(answer.stdout).toContain('wrote 2 history entry(ies)');
    expect(statSync(csv).mode & 0o777).toBe(0o600);
    const rows = readFileSync(csv, 'utf8').trim().split('\n');
    expect(rows[0]).toBe('id,brokerage_id,seq,record,at,source,kind,summary,detail,outcome,prev_hash,hash');
    expect(rows.slice(1).map((r) => r.split(',').slice(1, 4).join(' '))).toEqual([
      'acme 2 offer:7012',
      'acme 3 request:55',
    ]);
    const json = join(ws.dir, 'history.json');
    expect((await runCli(['history', '--export', json, '--to', '2026-03-01'], env)).code).toBe(0);
    const all = JSON.parse(readFileSync(json, 'utf8')) as { summary: string }[];
    expect(all.map((e) => e.summary)).toEqual(['created, "incoming"']);
    expect(statSync(json).mode & 0o777).toBe(0o600);

    // A range given the wrong way round is refused, not answered with an empty file.
    const reversed = join(ws.dir, 'reversed.csv');
    const refused = await runCli(
      ['history', '--export', reversed, '--from', '2026-03-03', '--to', '2026-03-01'],
      env,
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'history --export: --to (2026-03-02T00:00:00.000Z, exclusive) is not after --from (2026-03-03T00:00:00.000Z); nothing was written',
    );
    expect(existsSync(reversed)).toBe(false);
  });

  it('--verify passes on an intact ledger and exits 1 naming an entry edited by hand', async () => {
    const ok = await runCli(['history', '--verify'], env);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('history verified: 4 entry(ies) in 2 chain(s), intact');
    const ledger = await openLedger({ databasePath: ws.ledgerPath });
    try {
      await ledger.dataSource.query(
        "UPDATE history_entries SET summary = 'counter_offer sent: refused' WHERE brokerage_id = 'acme' AND seq = 2",
      );
    } finally {
      await ledger.close();
    }
    const broken = await runCli(['history', '--verify'], env);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(
      /history of acme is broken at entry \d+ \(seq 2, offer:7012\): its hash does not match its content \(edited\)/,
    );
    expect((await runCli(['history', '--verify', '--brokerage', 'bolt'], env)).code).toBe(0);
  });
});
