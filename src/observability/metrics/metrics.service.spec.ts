import { MetricsService } from './metrics.service';

describe('MetricsService', () => {
  it('exposes the named instruments in Prometheus text format', async () => {
    const metrics = new MetricsService();
    metrics.recordsSynced('acme', 'marketplace', 'created', 3);
    metrics.apiCall('acme', 'cash-offer', 429);
    metrics.webhookEvent('acme', 'duplicate');
    metrics.runFinished('acme', 'marketplace', 'succeeded', 1.5);
    const text = await metrics.render();
    expect(text).toContain(
      'cash_offer_sync_records_total{brokerage="acme",flow="marketplace",outcome="created"} 3',
    );
    expect(text).toContain(
      'cash_offer_sync_api_calls_total{brokerage="acme",target="cash-offer",status="429"} 1',
    );
    expect(text).toContain('cash_offer_sync_webhook_events_total{brokerage="acme",result="duplicate"} 1');
    expect(text).toContain(
      'run_duration_seconds_sum{brokerage="acme",job="marketplace",status="succeeded"} 1.5',
    );
    expect(metrics.contentType()).toMatch(/^text\/plain/);
  });

  it("records a run's outcome counts for one flow, leaving out the ones that did not happen", async () => {
    const metrics = new MetricsService();
    metrics.recordsSyncedInRun('acme', 'seller-requests', {
      read: 4,
      created: 3,
      updated: 0,
      unchanged: 0,
      failed: 1,
    });
    const text = await metrics.render();
    expect(text).toContain(
      'cash_offer_sync_records_total{brokerage="acme",flow="seller-requests",outcome="created"} 3',
    );
    expect(text).toContain(
      'cash_offer_sync_records_total{brokerage="acme",flow="seller-requests",outcome="failed"} 1',
    );
    expect(text).not.toContain('outcome="updated"');
    expect(text).not.toContain('outcome="read"');
  });

  it('reads outbox and inbox depth from the ledger once per scrape', async () => {
    const metrics = new MetricsService();
    let reads = 0;
    metrics.setDepthReader(async () => {
      reads += 1;
      return {
        outbox: [{ brokerageId: 'acme', state: 'dead', count: 2 }],
        inbox: [{ brokerageId: 'acme', state: 'pending', count: 5 }],
      };
    });
    const text = await metrics.render();
    expect(text).toContain('outbox_depth{brokerage="acme",state="dead"} 2');
    expect(text).toContain('inbox_depth{brokerage="acme",status="pending"} 5');
    expect(reads).toBe(1);
  });

  it('keeps the last depths when the ledger cannot be read', async () => {
    const metrics = new MetricsService();
    let fail = false;
    metrics.setDepthReader(async () => {
      if (fail) throw new Error('database is locked');
      return { outbox: [{ brokerageId: 'acme', state: 'pending', count: 1 }], inbox: [] };
    });
    await metrics.render();
    fail = true;
    expect(await metrics.render()).toContain('outbox_depth{brokerage="acme",state="pending"} 1');
  });

  it('shows each brokerage as ready (1) or failed to load (0)', async () => {
    const metrics = new MetricsService();
    metrics.setReadinessReader(() => [
      ['acme', true],
      ['broken', false],
    ]);
    const text = await metrics.render();
    expect(text).toContain('cash_offer_sync_brokerage_ready{brokerage="acme"} 1');
    expect(text).toContain('cash_offer_sync_brokerage_ready{brokerage="broken"} 0');
  });

  it('counts the alerts firing now by kind and brokerage, and none once they resolve', async () => {
    const metrics = new MetricsService();
    let open = [
      { kind: 'credential_refused', brokerageId: 'acme' },
      { kind: 'credential_refused', brokerageId: 'acme' },
      { kind: 'dead_work', brokerageId: 'beta' },
    ];
    metrics.setOpenAlertsReader(async () => open);
    let text = await metrics.render();
    expect(text).toContain('cash_offer_sync_alerts_open{kind="credential_refused",brokerage="acme"} 2');
    expect(text).toContain('cash_offer_sync_alerts_open{kind="dead_work",brokerage="beta"} 1');
    open = [];
    text = await metrics.render();
    expect(text).not.toMatch(/cash_offer_sync_alerts_open\{/);
  });
});
