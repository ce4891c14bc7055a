import { crmSchemaFor } from '../../src/brokerages/crm-setup.schema';
import {
  CrmStageMap,
  VendorNeutralCrmPort,
  type CrmAdapter,
  type CrmPort,
  type CrmVendorProfile,
} from '../../src/crm';
import { FOLLOWUPBOSS_VENDOR_PROFILE, FollowUpBossCrmAdapter } from '../../src/crm/followupboss';
import { HubSpotCrmAdapter, hubSpotVendorProfile } from '../../src/crm/hubspot';
import { startFollowUpBossEmulator, type FollowUpBossEmulator } from '../../sandbox/followupboss';
import { startHubSpotEmulator, type HubSpotEmulator } from '../../sandbox/hubspot';
import { freePort } from './free-port';

export type CrmVendor = 'hubspot' | 'followupboss';
export const CRM_VENDORS: CrmVendor[] = ['hubspot', 'followupboss'];

// One CRM emulator as the flow tests need it: a port of the test's own (raw, and vendor-neutral
// for acting as the agent), the listing pipeline's stages, the brokerage file's crm section, and the
// few things only the vendor's own API can do (create a bare record, count deals).
export interface CrmWorld {
  kind: CrmVendor;
  url: string;
  // The adapter itself (vendor field names) and the port as flows see it (role names).
  raw: CrmAdapter;
  port: CrmPort;
  stages: CrmStageMap;
  listings: { pipelineId: string; initialStageId: string; triggerStageId: string };
  // Lines of the brokerage file under `crm:` (indented two spaces) and the variables they name.
  configLines: string[];
  env: Record<string, string>;
  createContact(firstName: string, lastName: string, email: string): Promise<string>;
  createDeal(name: string, pipelineId: string, stageId: string): Promise<string>;
  countDeals(): number;
  // A CRM user to name as a brokerage's broker (HubSpot owner id, Follow Up Boss user id).
  brokerUserId: string;
  // Who a task is assigned to (null: nobody), read from the emulator.
  taskOwner(taskId: string): Promise<string | null>;
  // The listing agent as a CRM user (HubSpot owner id, Follow Up Boss user id), and making them the
  // owner of a listing deal: HubSpot's deal owner (hubspot_owner_id); in Follow Up Boss the seller's
  // agent already is (every seller is created with that agent).
  agentUserId: string;
  ownListing(dealId: string): Promise<void>;
  // The emulator's injected faults (`PUT /__control/faults`, the same body shape on both: errorRate,
  // errorAfterCommitRate, match...), for the calls the daemon makes from then on.
  faults(body: Record<string, unknown>): Promise<void>;
  hubspot?: HubSpotEmulator;
  followUpBoss?: FollowUpBossEmulator;
  close(): Promise<void>;
}

const HUBSPOT_TOKEN = 'pat-sync-seller-0000';
// Owners of the emulated portal (its default owners, sandbox/hubspot/emulator.owner-store.ts).
const HUBSPOT_BROKER_OWNER = '9001';
const HUBSPOT_AGENT_OWNER = '64492917';
const FUB_SELLER_AGENT = 7;
const FUB_BROKER_USER = '9';

export async function startCrmWorld(kind: CrmVendor): Promise<CrmWorld> {
  return kind === 'hubspot' ? startHubSpotWorld() : startFollowUpBossWorld();
}

const FLOW_SEARCH_INDEX_LAG_MS = 50;

async function putFaults(url: string, body: Record<string, unknown>): Promise<void> {
  const res = await fetch(`${url}/__control/faults`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`PUT /__control/faults: ${res.status} ${await res.text()}`);
}

async function startHubSpotWorld(): Promise<CrmWorld> {
  const hubspot = await startHubSpotEmulator({
    port: await freePort(),
    token: HUBSPOT_TOKEN,
    rateLimit: null,
    searchPerSecond: null,
    // The flows, not the lag, are under test here: a short lag keeps search eventually consistent
    // (every crm-changes run still waits for the index) without two seconds per agent edit. The
    // lag's own behaviour is tested at HubSpot's published figures (test/e2e/hubspot-emulator/).
    searchIndexLagMs: FLOW_SEARCH_INDEX_LAG_MS,
  });
  const raw = new HubSpotCrmAdapter({
    accessToken: HUBSPOT_TOKEN,
    basePath: hubspot.url,
    rateLimit: { max: 10_000, intervalMs: 1000 },
    searchRateLimit: { max: 1000, intervalMs: 1000 },
  });
  const stages = CrmStageMap.fromReport(await raw.ensureSchema(crmSchemaFor('hubspot')));
  const create = async (type: string, properties: Record<string, string>): Promise<string> => {
    const res = await fetch(`${hubspot.url}/crm/v3/objects/${type}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${HUBSPOT_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ properties }),
    });
    if (!res.ok) throw new Error(`create ${type}: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { id: string }).id;
  };
  return {
    kind: 'hubspot',
    url: hubspot.url,
    faults: (body) => putFaults(hubspot.url, body),
    raw,
    port: neutral(raw, hubSpotVendorProfile(new Map())),
    stages,
    listings: {
      pipelineId: 'default',
      initialStageId: 'appointmentscheduled',
      triggerStageId: 'qualifiedtobuy',
    },
    configLines: [
      '  kind: hubspot',
      `  baseUrl: ${hubspot.url}`,
      '  tokenEnv: ACME_HUBSPOT_TOKEN',
      '  rateLimit: { requestsPerSecond: 1000 }',
      // The emulator's search limit is off (above): at HubSpot's 5 a second, the daemon's own
      // searches were half of a HubSpot flow's time. The limit is tested in hubspot-portal-budget.
      '  searchRateLimit: { requestsPerSecond: 1000 }',
    ],
    env: { ACME_HUBSPOT_TOKEN: HUBSPOT_TOKEN },
    createContact: (firstName, lastName, email) =>
      create('contacts', { firstname: firstName, lastname: lastName, email }),
    createDeal: (name, pipelineId, stageId) =>
      create('deals', { dealname: name, pipeline: pipelineId, dealstage: stageId }),
    countDeals: () => hubspot.state.count('deals'),
    brokerUserId: HUBSPOT_BROKER_OWNER,
    taskOwner: (taskId) =>
      Promise.resolve(hubspot.state.get('tasks', taskId)?.properties.hubspot_owner_id || null),
    agentUserId: HUBSPOT_AGENT_OWNER,
    ownListing: async (dealId) => {
      const [result] = await raw.updateRecords('deal', [
        { id: dealId, properties: { hubspot_owner_id: HUBSPOT_AGENT_OWNER } },
      ]);
      if (!result.ok) throw result.error;
    },
    hubspot,
    close: () => hubspot.close(),
  };
}

async function startFollowUpBossWorld(): Promise<CrmWorld> {
  const fub = await startFollowUpBossEmulator({ port: await freePort(), rateLimit: null });
  const raw = new FollowUpBossCrmAdapter({
    apiKey: fub.apiKey,
    baseUrl: fub.url,
    systemKey: fub.systemKey,
    rateLimit: { max: 10_000, intervalMs: 1000 },
  });
  const stages = CrmStageMap.fromReport(await raw.ensureSchema(crmSchemaFor('followupboss')));
  const sellers = fub.state.pipelines().find((p) => p.name === 'Sellers')!;
  const stageOf = (name: string): string => String(sellers.stages.find((s) => s.name === name)!.id);
  const create = async (path: string, body: Record<string, unknown>): Promise<string> => {
    const res = await fetch(`${fub.url}/v1/${path}`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${fub.apiKey}:`).toString('base64')}`,
        'content-type': 'application/json',
        'X-System': fub.system,
        'X-System-Key': fub.systemKey,
      },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`create ${path}: ${res.status} ${await res.text()}`);
    return String(((await res.json()) as { id: number }).id);
  };
  return {
    kind: 'followupboss',
    url: fub.url,
    faults: (body) => putFaults(fub.url, body),
    raw,
    port: neutral(raw, FOLLOWUPBOSS_VENDOR_PROFILE),
    stages,
    listings: {
      pipelineId: String(sellers.id),
      initialStageId: stageOf('Listing Appointment'),
      triggerStageId: stageOf('Request Cash Offer'),
    },
    configLines: [
      '  kind: followupboss',
      `  baseUrl: ${fub.url}`,
      '  tokenEnv: ACME_FUB_API_KEY',
      '  systemKeyEnv: ACME_FUB_SYSTEM_KEY',
      '  rateLimit: { requestsPerSecond: 1000 }',
    ],
    env: { ACME_FUB_API_KEY: fub.apiKey, ACME_FUB_SYSTEM_KEY: fub.systemKey },
    // A seller has an agent (FUB's assignee for tasks on the person), as people in a brokerage do.
    createContact: (firstName, lastName, email) =>
      create('people', { firstName, lastName, emails: [{ value: email }], assignedUserId: FUB_SELLER_AGENT }),
    // The stage decides the pipeline in FUB.
    createDeal: (name, _pipelineId, stageId) => create('deals', { name, stageId: Number(stageId) }),
    countDeals: () => fub.state.count('deals'),
    brokerUserId: FUB_BROKER_USER,
    taskOwner: (taskId) => {
      const owner = fub.state.get('tasks', taskId)?.assignedUserId;
      return Promise.resolve(typeof owner === 'number' || typeof owner === 'string' ? String(owner) : null);
    },
    agentUserId: String(FUB_SELLER_AGENT),
    ownListing: () => Promise.resolve(),
    followUpBoss: fub,
    close: () => fub.close(),
  };
}

function neutral(raw: CrmAdapter, profile: CrmVendorProfile): CrmPort {
  return new VendorNeutralCrmPort(raw, profile);
}
