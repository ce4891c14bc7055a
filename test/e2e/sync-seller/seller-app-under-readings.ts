import { NeutralSellerSteps } from '../../support/crm-agent';
import { startSyncApp, type SyncTestApp } from '../../support/sync-app';

export interface SellerApp {
  t: SyncTestApp;
  steps: NeutralSellerSteps;
}

// A HubSpot daemon on SQLite against the sandbox under `readings`, started before one describe
// block's cases and closed after them. Filled in by beforeAll: read its fields inside the cases.
export function sellerAppUnderReadings(readings: Record<string, unknown>): SellerApp {
  const app = {} as SellerApp;
  beforeAll(async () => {
    app.t = await startSyncApp('hubspot');
    app.steps = new NeutralSellerSteps(app.t);
    await app.steps.sandbox.specReadings(readings);
  });
  afterAll(async () => {
    await app.t?.close();
  });
  return app;
}
