import { REQUIRED_HUBSPOT_SCOPES } from '../../../src/crm/hubspot';
import { startHubSpotEmulator } from '../../../sandbox/hubspot';
import type { HubSpotEmulator } from '../../../sandbox/hubspot';
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

// The operator learns about a missing HubSpot scope before any flow trips on a 403: from
// `validate-config --online` and from `setup-crm`, both naming the scope.
describe('CLI: a HubSpot token without a needed scope', () => {
  let ws: Workspace;
  let emulator: HubSpotEmulator;
  const token = secretsOf('acme').ACME_CRM_TOKEN;

  beforeAll(async () => {
    emulator = await startHubSpotEmulator({
      port: await freePort(),
      token,
      scopes: REQUIRED_HUBSPOT_SCOPES.filter((s) => s !== 'crm.schemas.deals.write'),
    });
  });

  afterAll(async () => {
    await emulator.close();
  });

  beforeEach(() => {
    ws = makeWorkspace();
    const config = brokerageConfig('acme');
    writeBrokerage(ws, { ...config, crm: { ...(config.crm as object), baseUrl: emulator.url } });
  });
  afterEach(() => ws.cleanup());

  it('validate-config --online exits 1 naming the scope; without --online the file alone is OK', async () => {
    const env = baseEnv(ws, 0, ['acme']);
    const offline = await runCli(['validate-config'], env);
    expect(offline.code).toBe(0);
    const online = await runCli(['validate-config', '--online'], env);
    expect(online.code).toBe(1);
    expect(online.stderr).toContain('acme.yaml (acme): the CRM token lacks scope crm.schemas.deals.write');
    const json = await runCli(['validate-config', '--online', '--json'], env);
    expect(JSON.parse(json.stdout)).toMatchObject({
      valid: false,
      online: [{ brokerageId: 'acme', missingScopes: ['crm.schemas.deals.write'] }],
    });
  });

  it('setup-crm fails naming the scope, before creating anything', async () => {
    const result = await runCli(['setup-crm'], baseEnv(ws, 0, ['acme']));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('crm.schemas.deals.write');
    expect(emulator.state.count('deals')).toBe(0);
  });
});
