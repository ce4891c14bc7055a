import { startSyncApp, type SyncTestApp } from '../../support/sync-app';
import { SyncAgent } from '../../support/sync-agent';
import { SandboxControl } from '../../support/sync-sandbox';

export interface AgentApp {
  t: SyncTestApp;
  agent: SyncAgent;
  sandbox: SandboxControl;
}

// A HubSpot daemon on SQLite, with the agent's CRM and the sandbox's control, started before one
// describe block's cases (under `readings`, if given) and closed after them. Filled in by beforeAll:
// read its fields inside the cases.
export function agentAppPerDescribe(readings?: Record<string, unknown>): AgentApp {
  const app = {} as AgentApp;
  beforeAll(async () => {
    app.t = await startSyncApp();
    app.agent = new SyncAgent(app.t.hubspot.url, app.t.hubspot.token, app.t.crm);
    app.sandbox = new SandboxControl(app.t.sandbox.controlUrl);
    if (readings) await app.sandbox.specReadings(readings);
  });
  afterAll(async () => {
    await app.t?.close();
  });
  return app;
}
