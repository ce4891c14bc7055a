import { Logger } from '@nestjs/common';
import { crmSchemaFor } from '../src/brokerages/crm-setup.schema';
import { CrmStageMap, UNIQUE_OFFER_ID, type CrmRecord, type CrmUpsertInput } from '../src/crm';
import { FollowUpBossCrmAdapter } from '../src/crm/followupboss';
import { startFollowUpBossEmulator, type FollowUpBossEmulator } from '../sandbox/followupboss';
import { freePort } from '../test/support/free-port';
import { fubControl } from '../test/support/fub-emulator.client';

// npm run bench:crm (second part) — Follow Up Boss: 10,000 upserted deals against the emulator's
// rate limit, as a ratio to the floor that limit allows for the calls made, and a pass over the
// same deals unchanged (re-read, compared, nothing written). FUB's limit is 250 calls per 10 s for a
// registered system; BENCH_FUB_LIMIT scales it (e.g. 2500) to shorten the run, BENCH_FUB_COUNT the size.
const COUNT = Number(process.env.BENCH_FUB_COUNT ?? 10_000);
const LIMIT = { max: Number(process.env.BENCH_FUB_LIMIT ?? 250), windowMs: 10_000 };

type Stats = Record<string, number>;

// Answers by "METHOD status" between two snapshots of the emulator's counters.
function delta(after: Stats, before: Stats): Stats {
  return Object.fromEntries(Object.entries(after).map(([k, v]) => [k, v - (before[k] ?? 0)]));
}

const sum = (stats: Stats, test: (key: string) => boolean): number =>
  Object.entries(stats)
    .filter(([k]) => test(k))
    .reduce((n, [, v]) => n + v, 0);

function adapterFor(
  fub: FollowUpBossEmulator,
  limit: { max: number; intervalMs: number },
): FollowUpBossCrmAdapter {
  return new FollowUpBossCrmAdapter({
    apiKey: fub.apiKey,
    baseUrl: fub.url,
    systemKey: fub.systemKey,
    rateLimit: limit,
  });
}

// The k-th call (0-based) cannot start before floor(k / max) windows have passed; the last window's
// calls still need their share of the service time (measured with no limit).
function floorMs(calls: number, serviceMs: number): number {
  const windows = Math.floor((calls - 1) / LIMIT.max);
  const inLast = calls - windows * LIMIT.max;
  return windows * LIMIT.windowMs + (serviceMs * inLast) / calls;
}

function line(label: string, value: string, target: string): void {
  console.log(`${label.padEnd(66)} ${value.padStart(14)}   target: ${target}`);
}

async function upsertRun(
  fub: FollowUpBossEmulator,
  limited: boolean,
  inputs: CrmUpsertInput[],
): Promise<{ ms: number; calls: number; rejected: number; adapter: FollowUpBossCrmAdapter }> {
  await fubControl(fub, 'POST', 'reset');
  await fubControl(fub, 'PUT', 'settings', { rateLimit: null });
  const setup = adapterFor(fub, { max: 1_000_000, intervalMs: 1000 });
  const stages = CrmStageMap.fromReport(await setup.ensureSchema(crmSchemaFor('followupboss')));
  await setup.listPipelines('deal');
  const stageId = stages.stageId('cash_offers', 'incoming');
  const pipelineId = stages.pipelineId('cash_offers');
  for (const input of inputs) Object.assign(input, { stageId, pipelineId });
  await fubControl(fub, 'PUT', 'settings', { rateLimit: limited ? LIMIT : null });
  const before = (await fubControl(fub, 'GET', 'stats')) as Stats;
  // The adapter's own limit matches the account's (as a brokerage's config would), with its margin.
  const adapter = adapterFor(
    fub,
    limited ? { max: LIMIT.max, intervalMs: LIMIT.windowMs } : { max: 1e6, intervalMs: 1000 },
  );
  const started = performance.now();
  const results = await adapter.upsertRecords('deal', UNIQUE_OFFER_ID, inputs);
  const ms = performance.now() - started;
  const failed = results.filter((r) => !r.ok);
  if (failed.length > 0) throw new Error(`${failed.length} upserts failed: ${JSON.stringify(failed[0])}`);
  const stats = delta((await fubControl(fub, 'GET', 'stats')) as Stats, before);
  return {
    ms,
    calls: sum(stats, (k) => !k.endsWith(' 429')),
    rejected: sum(stats, (k) => k.endsWith(' 429')),
    adapter,
  };
}

function deals(count: number): CrmUpsertInput[] {
  return Array.from({ length: count }, (_, i) => ({
    key: `bench-${i}`,
    properties: { name: `Offer ${i}`, price: String(300_000 + i), cash_offer_offer_status: 'active' },
  }));
}

async function main(): Promise<void> {
  Logger.overrideLogger(['error']);
  const fub = await startFollowUpBossEmulator({ port: await freePort(), rateLimit: null });
  try {
    console.log(
      `Follow Up Boss CRM adapter benchmark (emulator on 127.0.0.1, ${LIMIT.max} calls / ${LIMIT.windowMs / 1000} s)\n`,
    );
    const service = await upsertRun(fub, false, deals(COUNT));
    const run = await upsertRun(fub, true, deals(COUNT));
    const floor = floorMs(run.calls, service.ms);
    line(
      `API calls for ${COUNT.toLocaleString('en-US')} new deals`,
      String(run.calls),
      `~${COUNT} (one create each)`,
    );
    line('  of which answered 429', String(run.rejected), '0');
    line(`time to upsert ${COUNT.toLocaleString('en-US')} deals (s)`, (run.ms / 1000).toFixed(1), '');
    line('  floor the rate limit allows for those calls (s)', (floor / 1000).toFixed(1), '');
    line('  ratio to the floor', (run.ms / floor).toFixed(3), '<= 1.15');

    // The unchanged pass: read every deal back, compare with what was sent, write only what differs.
    const before = (await fubControl(fub, 'GET', 'stats')) as Stats;
    const sent = new Map(deals(COUNT).map((d) => [d.key, d.properties]));
    const read: CrmRecord[] = [];
    for await (const page of run.adapter.readChanges({
      kind: 'deal',
      since: null,
      properties: [UNIQUE_OFFER_ID, 'name', 'price', 'cash_offer_offer_status'],
    })) {
      read.push(...page.records);
    }
    const changed = read.filter((r) => {
      const props = sent.get(r.properties[UNIQUE_OFFER_ID] ?? '');
      return !props || Object.entries(props).some(([k, v]) => r.properties[k] !== v);
    });
    const writes =
      changed.length > 0
        ? await run.adapter.updateRecords(
            'deal',
            changed.map((r) => ({ id: r.id, properties: {} })),
          )
        : [];
    const pass = delta((await fubControl(fub, 'GET', 'stats')) as Stats, before);
    line('no-change pass: deals read', String(read.length), String(COUNT));
    line('no-change pass: writes', String(writes.length + sum(pass, (k) => !k.startsWith('GET '))), '0');
    line(
      'no-change pass: read calls (100 deals a page)',
      String(sum(pass, () => true)),
      `~${Math.ceil(COUNT / 100)}`,
    );
  } finally {
    await fub.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
