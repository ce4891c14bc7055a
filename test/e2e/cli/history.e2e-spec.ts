import { readFileSync, statSync } from 'node:fs';
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
    } finally {
      await ledger.close();
    }
  });
  afterEach(() => ws.cleanup());

  it('prints a record’s entries in order, as a table and as JSON', async () => {
    const table = await runCli(['history', '--record', 'offer:7012'], env);
    expect(table.code).toBe(0);
    const lines = table.stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[1]).toMatch(/acme\s+daemon\s+record_shown\s+created, "incoming"\s+done/);
    expect(lines[2]).toMatch(/command_sent\s+counter_offer sent: done/);
    const json = await runCli(['history', '--record', 'offer:7012', '--json'], env);
    const { entries } = JSON.parse(json.stdout) as { entries: { seq: number; detail: unknown }[] };
    expect(entries.map((e) => e.seq)).toEqual([1, 2]);
    expect(entries[0].detail).toEqual({ amount: 360_000 });
    const bad = await runCli(['history', '--record', '7012'], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--record takes offer:<id>, request:<id> or deal:<id>');
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
