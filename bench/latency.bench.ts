import './simulators-logging';
import { hubSpotWebhooksJson } from '../src/brokerages/hubspot-webhook-subscriptions';
import { DEFAULT_SCHEDULES } from '../src/config/brokerage-config.schema';
import { ConfigService } from '../src/config/config.service';
import { UNIQUE_OFFER_ID, type CrmRecord } from '../src/crm';
import { CrmAgent, NEUTRAL_LISTING } from '../test/support/crm-agent';
import { BROKERAGE, startSyncApp, type SyncTestApp } from '../test/support/sync-app';
import { SandboxControl } from '../test/support/sync-sandbox';
import type { CrmVendor } from '../test/support/sync-crm-world';

// "Seconds, not minutes": how long an agent's action in the CRM, or a buyer's offer at
// the service, takes to reach the other side, with the DEFAULT schedules (crm-changes each minute,
// inbox drain every 5 s, outbox drain every 10 s, spread per brokerage), the daemon's flows in this
// process on a real SQLite ledger, real HTTP everywhere. The CRMs' change webhooks are on: the HubSpot
// emulator subscribed the way setup-crm's webhooks.json says (its control API), Follow Up Boss's
// registered by the daemon. Then HubSpot again with every webhook dropped: results still complete,
// bounded by the poll schedule. Agents act on several deals at once; buyers make offers through the
// sandbox's control API.
const DEALS = Number(process.env.BENCH_DEALS ?? 6);
const OFFERS_PER_DEAL = 2;
const TARGET_P95_S = 10;
type Action =
  | 'flag -> request'
  | 'offer -> CRM record'
  | 'accept -> service'
  | 'reject -> service'
  | 'counter -> service';
const ACTIONS: Action[] = [
  'flag -> request',
  'offer -> CRM record',
  'accept -> service',
  'reject -> service',
  'counter -> service',
];

async function poll<T>(
  check: () => Promise<T | undefined | false> | T | undefined | false,
  what: string,
  timeoutMs = 180_000,
  intervalMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

async function subscribeHubSpot(t: SyncTestApp, dropAll: boolean): Promise<void> {
  const brokerage = t.app.get(ConfigService).get(BROKERAGE)!;
  const put = async (path: string, body: unknown) => {
    const res = await fetch(`${t.hubspot.url}/__control/webhooks${path}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`emulator webhooks ${path}: ${res.status} ${await res.text()}`);
  };
  await put('', hubSpotWebhooksJson(brokerage));
  if (dropAll) await put('/faults', { drop: 1_000_000 });
}

// The offer's CRM record as the agent sees it. HubSpot's is read from the emulator's store (a search
// would add the index lag to what is measured and spend the portal's search budget).
async function offerRecord(
  t: SyncTestApp,
  agent: CrmAgent,
  offerId: number,
): Promise<{ id: string } | undefined> {
  if (t.world.kind === 'hubspot') {
    const found = t.hubspot.state.findByProperty('deals', UNIQUE_OFFER_ID, String(offerId));
    return found ? { id: found.id } : undefined;
  }
  const record: CrmRecord | undefined = await agent.offerRecord(offerId);
  return record ? { id: record.id } : undefined;
}

async function scenario(kind: CrmVendor, dropHubSpotWebhooks: boolean): Promise<Map<Action, number[]>> {
  const t = await startSyncApp(kind, {
    hubSpotWebhooks: kind === 'hubspot',
    crmChangeWebhooks: kind === 'followupboss',
    cron: { schedules: { ...DEFAULT_SCHEDULES } },
  });
  const figures = new Map<Action, number[]>(ACTIONS.map((a) => [a, []]));
  const took = (action: Action, since: number) => figures.get(action)!.push((Date.now() - since) / 1000);
  try {
    if (kind === 'hubspot') await subscribeHubSpot(t, dropHubSpotWebhooks);
    const agent = new CrmAgent(t.world);
    const sandbox = new SandboxControl(t.sandbox.controlUrl);
    await Promise.all(
      Array.from({ length: DEALS }, async (_, n) => {
        const { dealId } = await agent.listingDeal({
          ...NEUTRAL_LISTING,
          listing_street_number: String(200 + n),
        });
        // Agents act at moments of their own, not in step with the schedules.
        await new Promise((r) => setTimeout(r, n * 1700));
        const flagged = Date.now();
        await agent.requestCashOffer(dealId);
        const request = await poll(
          async () => (await sandbox.requests()).find((r) => r.offer_request_external_id === dealId),
          `deal ${dealId}'s request`,
        );
        took('flag -> request', flagged);
        await sandbox.approve(request.offer_request_id);

        const records: { offerId: number; recordId: string }[] = [];
        for (let i = 0; i < OFFERS_PER_DEAL; i++) {
          const made = Date.now();
          const offer = await sandbox.makeOffer(request.offer_request_id, {
            offer_amount: 330_000 + 10_000 * i,
          });
          const record = await poll(
            () => offerRecord(t, agent, offer.offer_id),
            `offer ${offer.offer_id}'s record`,
          );
          took('offer -> CRM record', made);
          records.push({ offerId: offer.offer_id, recordId: record.id });
        }

        // One kind of decision per deal (an accept rejects the deal's other offers at the service).
        const decision = (['accept', 'reject', 'counter'] as const)[n % 3];
        const decided = decision === 'accept' ? records.slice(0, 1) : records;
        await Promise.all(
          decided.map(async ({ offerId, recordId }) => {
            const at = Date.now();
            if (decision === 'counter')
              await agent.moveOffer(recordId, 'counter_requested', {
                cash_offer_counter_amount: '372000',
                cash_offer_counter_listing_broker_commission_pct: '2',
                cash_offer_counter_memo: 'Meet in the middle',
              });
            else await agent.moveOffer(recordId, `${decision}_requested`);
            await poll(async () => {
              if (decision === 'counter')
                return (await sandbox.counters()).some((c) => c.offer_id === offerId);
              const want = decision === 'accept' ? 'accepted' : 'rejected';
              return (await sandbox.offers()).some((o) => o.offer_id === offerId && o.offer_status === want);
            }, `the ${decision} of offer ${offerId}`);
            took(`${decision} -> service`, at);
          }),
        );
      }),
    );
    return figures;
  } finally {
    await t.close();
  }
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

function print(title: string, figures: Map<Action, number[]>, target: boolean): boolean {
  console.log(title);
  let met = true;
  for (const [action, values] of figures) {
    const sorted = [...values].sort((a, b) => a - b);
    if (sorted.length === 0) {
      console.log(`  ${action.padEnd(22)} no samples`);
      continue;
    }
    const p95 = quantile(sorted, 0.95);
    if (p95 > TARGET_P95_S) met = false;
    console.log(
      `  ${action.padEnd(22)} n ${String(sorted.length).padStart(2)}  p50 ${quantile(sorted, 0.5).toFixed(1).padStart(5)} s  p95 ${p95.toFixed(1).padStart(5)} s  max ${sorted[sorted.length - 1].toFixed(1).padStart(5)} s${target ? (p95 <= TARGET_P95_S ? '' : `  MISSES p95 <= ${TARGET_P95_S} s`) : ''}`,
    );
  }
  return met;
}

async function main(): Promise<void> {
  console.log(`bench:latency: ${DEALS} deals per CRM, ${OFFERS_PER_DEAL} offers each, default schedules`);
  const only = process.env.BENCH_SCENARIOS?.split(',');
  const runs: [string, CrmVendor, boolean, boolean][] = [
    ['hubspot', 'hubspot', false, true],
    ['followupboss', 'followupboss', false, true],
    ['hubspot-dropped', 'hubspot', true, false],
  ];
  let met = true;
  for (const [name, kind, drop, target] of runs) {
    if (only && !only.includes(name)) continue;
    const started = Date.now();
    const figures = await scenario(kind, drop);
    const title = drop
      ? `HubSpot, every change webhook dropped (polling only; crm-changes each minute + search lag)`
      : `${kind === 'hubspot' ? 'HubSpot' : 'Follow Up Boss'}, change webhooks on`;
    if (!print(`${title} [${((Date.now() - started) / 1000).toFixed(0)} s]`, figures, target) && target)
      met = false;
  }
  console.log(
    met ? `target met: p95 <= ${TARGET_P95_S} s for every action with webhooks on` : 'target missed',
  );
}

main()
  .then(() => process.exit(0))
  .catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
