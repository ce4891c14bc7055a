import { startFollowUpBossEmulator, type FollowUpBossEmulator } from '../../../sandbox/followupboss';
import { startHubSpotEmulator, type HubSpotEmulator } from '../../../sandbox/hubspot';
import { freePort } from '../../support/free-port';
import {
  baseEnv,
  brokerageConfig,
  makeWorkspace,
  runCli,
  secretsOf,
  writeBrokerage,
  type Workspace,
} from '../daemon/daemon.fixtures';

// Child processes take a second or more each on a busy machine.
jest.setTimeout(60_000);

interface OnlineJson {
  valid: boolean;
  problems: { file: string; path?: string }[];
  online: {
    brokerageId: string;
    file: string;
    path?: string;
    unknownId?: string;
    existing?: { id: string }[];
  }[];
}

// A listing pipeline or trigger stage id the CRM does not have passes every offline check, and the
// daemon then finds no deals. `validate-config --online` reads the CRM's deal pipelines (through the
// port: HubSpot's /crm/v3/pipelines/deals, Follow Up Boss's /v1/pipelines) and names each wrong id,
// its file and key, and the ids there are: every brokerage's in one run (needs `npm run build`).
describe('CLI: validate-config --online checks the CRM ids a brokerage file names', () => {
  let ws: Workspace;
  let hubspot: HubSpotEmulator;
  let fub: FollowUpBossEmulator;

  const hubspotBrokerage = (id: string, listings: Record<string, string>) => {
    const config = brokerageConfig(id);
    writeBrokerage(ws, {
      ...config,
      crm: { ...(config.crm as object), baseUrl: hubspot.url, pipelines: { listings } },
    });
  };
  const fubBrokerage = (listings: Record<string, string>) => {
    const config = brokerageConfig('fubco');
    writeBrokerage(ws, {
      ...config,
      crm: {
        kind: 'followupboss',
        baseUrl: fub.url,
        tokenEnv: 'FUBCO_CRM_TOKEN',
        system: fub.system,
        systemKeyEnv: 'FUBCO_FUB_SYSTEM_KEY',
        changeWebhooks: false,
        pipelines: { listings },
      },
    });
  };
  const env = (ids: string[]) => ({
    ...baseEnv(ws, 0, ids),
    FUBCO_CRM_TOKEN: fub.apiKey,
    FUBCO_FUB_SYSTEM_KEY: fub.systemKey,
  });

  beforeAll(async () => {
    hubspot = await startHubSpotEmulator({ port: await freePort(), token: secretsOf('acme').ACME_CRM_TOKEN });
    fub = await startFollowUpBossEmulator({ port: 0, rateLimit: null });
  });

  afterAll(async () => {
    await hubspot.close();
    await fub.close();
  });

  beforeEach(() => {
    ws = makeWorkspace();
  });
  afterEach(() => ws.cleanup());

  it('passes ids both CRMs have', async () => {
    hubspotBrokerage('acme', { pipelineId: 'default', triggerStageId: 'appointmentscheduled' });
    // The emulator's fresh account: Buyers (1) with stages 1-5, Sellers (2) with 6-11, 8 "Request Cash Offer".
    fubBrokerage({ pipelineId: '2', triggerStageId: '8' });
    const result = await runCli(['validate-config', '--online', '--json'], env(['acme', 'fubco']));
    expect(JSON.parse(result.stdout)).toMatchObject({ valid: true, online: [] });
    expect(result.code).toBe(0);
  });

  it('names every wrong id of every file, with the ids the CRM has, and exits 1', async () => {
    hubspotBrokerage('acme', { pipelineId: '123', triggerProperty: 'cash_offer_request_trigger' });
    // Stage 3 is the Buyers pipeline's "Offer", not a Sellers stage.
    fubBrokerage({ pipelineId: '2', triggerStageId: '3' });
    const result = await runCli(['validate-config', '--online'], env(['acme', 'fubco']));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('the CRMs found 2 problem(s):');
    expect(result.stderr).toContain(
      "acme.yaml (acme): crm.pipelines.listings.pipelineId '123' is not a deal pipeline in this HubSpot account; it has: default (Sales Pipeline)",
    );
    expect(result.stderr).toContain(
      "fubco.yaml (fubco): crm.pipelines.listings.triggerStageId '3' is not a stage of pipeline 2 (Sellers); it has: 6 (Lead), 7 (Listing Appointment), 8 (Request Cash Offer)",
    );
    expect(result.stderr).toContain("('3' is stage Offer of pipeline 1 (Buyers))");

    const json = await runCli(['validate-config', '--online', '--json'], env(['acme', 'fubco']));
    expect(json.code).toBe(1);
    const body = JSON.parse(json.stdout) as OnlineJson;
    expect(body.valid).toBe(false);
    expect(body.online).toEqual([
      expect.objectContaining({
        brokerageId: 'acme',
        path: 'crm.pipelines.listings.pipelineId',
        unknownId: '123',
        existing: [{ id: 'default', label: 'Sales Pipeline' }],
      }),
      expect.objectContaining({
        brokerageId: 'fubco',
        path: 'crm.pipelines.listings.triggerStageId',
        unknownId: '3',
      }),
    ]);
  });

  it("reports a file's offline problems and another brokerage's wrong CRM id in the same run", async () => {
    hubspotBrokerage('acme', { pipelineId: 'nope' });
    writeBrokerage(ws, { ...brokerageConfig('broken'), colour: 'blue' });
    const result = await runCli(['validate-config', '--online', '--json'], env(['acme', 'broken']));
    expect(result.code).toBe(1);
    const body = JSON.parse(result.stdout) as OnlineJson;
    expect(body.problems.map((p) => p.path)).toContain('colour');
    expect(body.online.map((o) => [o.brokerageId, o.path])).toEqual([
      ['acme', 'crm.pipelines.listings.pipelineId'],
    ]);
  });

  it('says once that Follow Up Boss refuses the key, rather than a pipeline problem', async () => {
    fubBrokerage({ pipelineId: '2', triggerStageId: '8' });
    const result = await runCli(['validate-config', '--online', '--json'], {
      ...env(['fubco']),
      FUBCO_CRM_TOKEN: 'not-the-key',
    });
    expect(result.code).toBe(1);
    const body = JSON.parse(result.stdout) as OnlineJson;
    expect(body.online).toHaveLength(1);
    expect(body.online[0]).toMatchObject({ brokerageId: 'fubco' });
    expect(body.online[0]).not.toHaveProperty('path');
  });
});
