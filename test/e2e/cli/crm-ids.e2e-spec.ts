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
    problem: string;
    unknownId?: string;
    existing?: { id: string }[];
  }[];
  warnings: { brokerageId: string; path?: string; unknownId?: string; warning: string }[];
}

// A listing pipeline or trigger stage id the CRM does not have passes every offline check, and the
// daemon then finds no deals. `validate-config --online` reads the CRM's deal pipelines (through the
// port: HubSpot's /crm/v3/pipelines/deals, Follow Up Boss's /v1/pipelines) and names each wrong id,
// its file and key, and the ids there are: every brokerage's in one run (needs `npm run build`).
describe('CLI: validate-config --online checks the CRM ids a brokerage file names', () => {
  let ws: Workspace;
  let hubspot: HubSpotEmulator;
  let fub: FollowUpBossEmulator;

  const hubspotBrokerage = (id: string, listings: Record<string, string>, baseUrl = hubspot.url) => {
    const config = brokerageConfig(id);
    writeBrokerage(ws, {
      ...config,
      crm: { ...(config.crm as object), baseUrl, pipelines: { listings } },
    });
  };
  const fubBrokerage = (listings: Record<string, string>, baseUrl = fub.url) => {
    const config = brokerageConfig('fubco');
    writeBrokerage(ws, {
      ...config,
      crm: {
        kind: 'followupboss',
        baseUrl,
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
    // setup-crm has not run on this account: its trigger checkbox is missing, which is no failure yet.
    expect(result.stderr).toMatch(
      /warning: \S*acme\.yaml \(acme\): crm\.pipelines\.listings\.triggerProperty 'cash_offer_request_trigger' is not a deal property in this HubSpot account yet: setup-crm creates it/,
    );

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

  it('names a trigger property the deals lack, on either CRM, and exits 1', async () => {
    hubspotBrokerage('acme', { pipelineId: 'default', triggerProperty: 'acme_go' });
    fubBrokerage({ pipelineId: '2', triggerProperty: 'acme_go' });
    const result = await runCli(['validate-config', '--online'], env(['acme', 'fubco']));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('the CRMs found 2 problem(s):');
    expect(result.stderr).toContain(
      "acme.yaml (acme): crm.pipelines.listings.triggerProperty 'acme_go' is not a deal property in this HubSpot account; it has no custom deal properties",
    );
    expect(result.stderr).toContain(
      "fubco.yaml (fubco): crm.pipelines.listings.triggerProperty 'acme_go' (field customAcmeGo) is not a deal property in this Follow Up Boss account",
    );

    const json = await runCli(['validate-config', '--online', '--json'], env(['acme', 'fubco']));
    const body = JSON.parse(json.stdout) as OnlineJson;
    expect(body.online.map((o) => [o.brokerageId, o.path, o.unknownId])).toEqual([
      ['acme', 'crm.pipelines.listings.triggerProperty', 'acme_go'],
      ['fubco', 'crm.pipelines.listings.triggerProperty', 'acme_go'],
    ]);
  });

  it("passes a trigger property once setup-crm has made it, and says so when the CRM can't be asked", async () => {
    hubspotBrokerage('acme', { pipelineId: 'default', triggerProperty: 'cash_offer_request_trigger' });
    fubBrokerage({ pipelineId: '2', triggerProperty: 'cash_offer_request_trigger' });
    expect((await runCli(['setup-crm'], env(['acme', 'fubco']))).code).toBe(0);
    const result = await runCli(['validate-config', '--online', '--json'], env(['acme', 'fubco']));
    expect(JSON.parse(result.stdout)).toMatchObject({ valid: true, online: [], warnings: [] });
    expect(result.code).toBe(0);

    // Nothing listens there: a failed read is a problem of its own, never "not a deal property".
    const nowhere = `http://127.0.0.1:${await freePort()}`;
    ws.cleanup();
    ws = makeWorkspace();
    fubBrokerage({ pipelineId: '2', triggerProperty: 'acme_go' }, nowhere);
    const down = await runCli(['validate-config', '--online', '--json'], env(['fubco']));
    expect(down.code).toBe(1);
    const body = JSON.parse(down.stdout) as OnlineJson;
    expect(body.online).toHaveLength(1);
    expect(body.online[0]).not.toHaveProperty('path');
    expect(body.online[0]).not.toHaveProperty('unknownId');
    expect(body.online[0].problem).toMatch(
      /^could not read the CRM's deal pipelines or properties, so the pipeline, stage and trigger property are unchecked: /,
    );
  });
});
