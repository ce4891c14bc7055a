import { HistoryCommand } from '../../../src/cli/commands/history.command';
import { CliOutput } from '../../../src/cli/output/cli-output';
import type { HistoryEntry } from '../../../src/ledger';
import { NeutralSellerSteps } from '../../support/crm-agent';
import { startSyncApp, type SyncTestApp } from '../../support/sync-app';
import { ledgerEngines } from '../../support/ledger-fixture';
import { Writable } from 'node:stream';

// The decision history of a countered-then-accepted offer, written by the real flows (events, the
// agent's counter in the CRM, the drain, the write-backs, the cascade), as `cli history` prints it.
describe.each(ledgerEngines())('decision history of a countered offer (hubspot, ledger on %s)', (engine) => {
  let t: SyncTestApp;
  let steps: NeutralSellerSteps;

  beforeAll(async () => {
    t = await startSyncApp('hubspot', { engine });
    steps = new NeutralSellerSteps(t);
  });

  afterAll(async () => {
    await t?.close();
  });

  const decide = async () => {
    expect((await t.run('crm-changes')).status).toBe('succeeded');
    expect((await t.run('outbox-drain')).status).toBe('succeeded');
  };

  // `cli history` on the app's own ledger: what it prints, and the exit code it sets.
  const cli = async (options: Record<string, unknown>) => {
    let stdout = '';
    let stderr = '';
    const sink = (onText: (text: string) => void) =>
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          onText(chunk.toString());
          done();
        },
      });
    const output = new CliOutput(
      sink((text) => (stdout += text)),
      sink((text) => (stderr += text)),
    );
    const before = process.exitCode;
    process.exitCode = undefined;
    try {
      await new HistoryCommand(t.ledger.history, t.ledger.links, t.ledger.clock, output).run([], options);
      return { stdout, stderr, code: process.exitCode ?? 0 };
    } finally {
      process.exitCode = before;
    }
  };

  const life = (entries: HistoryEntry[]) => entries.map((e) => `${e.source} ${e.kind} ${e.outcome}`);

  it('shows the whole life of a countered-then-accepted offer in order, and --verify fails after a hand edit', async () => {
    const { dealId, requestId } = await steps.activeRequest();
    const offer = await steps.sandbox.makeOffer(requestId, { offer_amount: 360_000 });
    const other = await steps.sandbox.makeOffer(requestId, { offer_amount: 355_000 });
    await steps.applyEvents(2);

    const record = await steps.agent.offerRecord(offer.offer_id);
    await steps.agent.moveOffer(record!.id, 'counter_requested', {
      cash_offer_counter_amount: '372000',
      cash_offer_counter_listing_broker_commission_pct: '2',
    });
    await decide();
    const counterId = Number(
      (await steps.agent.offerRecord(offer.offer_id))!.properties.cash_offer_counter_offer_id,
    );
    const buyerAccepted = await steps.sandbox.acceptCounter(counterId);
    await steps.applyEvents(1);

    const entries = await t.ledger.history.list(`offer:${offer.offer_id}`);
    expect(life(entries)).toEqual([
      'daemon record_shown created', // the offer arrives: its CRM record in Incoming
      'webhook event_applied applied', // from the new_offer event
      'agent agent_move requested', // the agent's counter in the CRM
      'daemon command_queued queued',
      'service command_sent done', // POST /counter-offers and the service's answer
      'daemon record_shown updated', // the record shows the counter
      'daemon write_back done',
      'daemon record_shown updated', // the buyer accepted: the counter shows accepted
      'service counter_answered accepted', // ... with the buyer's new accepted offer
    ]);
    expect(entries[0].summary).toContain('stage incoming, status active, amount 360000');
    expect(entries[2].summary).toContain('counter requested at 372000');
    expect(entries[4].summary).toMatch(/^counter_offer sent .*: done$/);
    expect(entries[5].summary).toContain(
      `stage countered, status countered, amount 360000, counter ${counterId} pending`,
    );
    expect(entries[7].summary).toContain(`counter ${counterId} accepted`);
    expect(entries[8].summary).toBe(
      `the buyer accepted counter ${counterId}: new offer ${buyerAccepted.offer_id} of 372000 (accepted)`,
    );
    expect(entries.map((e) => e.at.getTime())).toEqual(
      [...entries.map((e) => e.at.getTime())].sort((a, b) => a - b),
    );

    // The cascade: the other offer rejected by the service, the request under contract.
    const cascade = await t.ledger.history.list(`offer:${other.offer_id}`);
    expect(cascade.at(-1)).toMatchObject({ kind: 'cascade', source: 'service' });
    expect(cascade.at(-1)!.summary).toContain(
      `rejected by the service when offer ${buyerAccepted.offer_id} was accepted`,
    );
    const request = await t.ledger.history.list(`request:${requestId}`);
    expect(request.map((e) => `${e.kind} ${JSON.parse(e.detail).status}`)).toEqual([
      'record_shown receiving_offers', // the offer_request_approved event
      'cascade under_contract',
    ]);
    // The listing deal's own history: the create sent and written back.
    const deal = await t.ledger.history.list(`deal:${dealId}`);
    expect(life(deal)).toEqual(['service command_sent done', 'daemon write_back done']);
    expect(JSON.parse(deal[0].detail)).toMatchObject({ answer: { offer_request_id: requestId } });

    const shown = await cli({ record: `offer:${offer.offer_id}` });
    expect(shown.code).toBe(0);
    const lines = shown.stdout.split('\n');
    expect(lines[0]).toBe(`offer:${offer.offer_id} is also deal:${record!.id} (brokerage acme)`);
    expect(lines[1]).toMatch(/^AT\s+BROKERAGE\s+SOURCE\s+KIND\s+WHAT\s+OUTCOME/);
    const kinds = lines
      .slice(2)
      .map(
        (l) =>
          / (record_shown|event_applied|agent_move|command_queued|command_sent|write_back|counter_answered) /.exec(
            l,
          )?.[1],
      )
      .filter(Boolean);
    expect(kinds).toEqual(entries.map((e) => e.kind));
    const json = await cli({ record: `offer:${offer.offer_id}`, json: true });
    expect((JSON.parse(json.stdout) as { entries: { hash: string }[] }).entries.map((e) => e.hash)).toEqual(
      entries.map((e) => e.hash),
    );

    // Asked for by the name the agent and the record errors use, its CRM deal, the offer's life is
    // told all the same; a listing deal's by its request id, with the create and write-back.
    const byDeal = await cli({ record: `deal:${record!.id}`, json: true });
    expect(JSON.parse(byDeal.stdout)).toMatchObject({
      alsoNamed: [{ brokerageId: 'acme', record: `offer:${offer.offer_id}` }],
    });
    expect((JSON.parse(byDeal.stdout) as { entries: { hash: string }[] }).entries.map((e) => e.hash)).toEqual(
      entries.map((e) => e.hash),
    );
    const byDealText = await cli({ record: `deal:${record!.id}` });
    expect(byDealText.stdout.split('\n')[0]).toBe(
      `deal:${record!.id} is also offer:${offer.offer_id} (brokerage acme)`,
    );
    const byRequest = JSON.parse((await cli({ record: `request:${requestId}`, json: true })).stdout) as {
      alsoNamed: unknown[];
      entries: { hash: string; seq: number }[];
    };
    expect(byRequest.alsoNamed).toEqual([{ brokerageId: 'acme', record: `deal:${dealId}` }]);
    expect(byRequest.entries.map((e) => e.hash).sort()).toEqual(
      [...deal, ...request].map((e) => e.hash).sort(),
    );
    expect(byRequest.entries.map((e) => e.seq)).toEqual(
      [...byRequest.entries.map((e) => e.seq)].sort((a, b) => a - b),
    );
    expect(byRequest.entries[0].hash).toBe(deal[0].hash); // the create came first

    await expect(cli({ verify: true })).resolves.toMatchObject({ code: 0, stderr: '' });
    // Someone "improves" the counter's answer by hand.
    await t.ledger.dataSource.query(
      `UPDATE history_entries SET summary = 'counter_offer sent: refused' WHERE id = ${entries[4].id}`,
    );
    const verified = await cli({ verify: true });
    expect(verified.code).toBe(1);
    expect(verified.stderr).toContain(
      `history of acme is broken at entry ${entries[4].id} (seq ${entries[4].seq}, offer:${offer.offer_id})`,
    );
    expect(verified.stderr).toContain('edited');
  });
});
