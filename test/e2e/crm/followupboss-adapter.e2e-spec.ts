import { fubControl } from '../../support/fub-emulator.client';
import { crmSchemaFor } from '../../../src/brokerages/crm-setup.schema';
import {
  CrmStageMap,
  UNIQUE_OFFER_ID,
  VendorNeutralCrmPort,
  type CrmCursor,
  type CrmAdapter,
  type CrmRecord,
  type ReadChangesOptions,
} from '../../../src/crm';
import { FOLLOWUPBOSS_VENDOR_PROFILE, FollowUpBossCrmAdapter } from '../../../src/crm/followupboss';
import { startFollowUpBossEmulator, type FollowUpBossEmulator } from '../../../sandbox/followupboss';

async function readAll(
  port: CrmAdapter,
  options: ReadChangesOptions,
): Promise<{ records: CrmRecord[]; cursor: CrmCursor | null }> {
  const records: CrmRecord[] = [];
  let cursor: CrmCursor | null = options.since;
  for await (const page of port.readChanges(options)) {
    records.push(...page.records);
    cursor = page.cursor;
  }
  return { records, cursor };
}

async function control(
  emulator: FollowUpBossEmulator,
  method: string,
  path: string,
  body?: unknown,
): Promise<unknown> {
  const res = await fetch(`${emulator.url}/__control/${path}`, {
    method,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!res.ok) throw new Error(`control ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

describe('FollowUpBossCrmAdapter against the Follow Up Boss emulator', () => {
  let emulator: FollowUpBossEmulator;
  let adapter: FollowUpBossCrmAdapter;
  let stages: CrmStageMap;

  const build = (extra: Partial<ConstructorParameters<typeof FollowUpBossCrmAdapter>[0]> = {}) =>
    new FollowUpBossCrmAdapter({
      apiKey: emulator.apiKey,
      baseUrl: emulator.url,
      systemKey: emulator.systemKey,
      rateLimit: { max: 10_000, intervalMs: 1000 },
      // Backoff in milliseconds rather than FUB's seconds; a 429's Retry-After is still waited out.
      retryBaseDelayMs: 10,
      ...extra,
    });

  beforeAll(async () => {
    emulator = await startFollowUpBossEmulator({ port: 0, rateLimit: null });
    adapter = build();
    stages = CrmStageMap.fromReport(await adapter.ensureSchema(crmSchemaFor('followupboss')));
  });

  afterAll(async () => {
    await emulator.close();
  });

  it('setup-crm creates custom fields and pipelines once, then finds them all', async () => {
    const again = await adapter.ensureSchema(crmSchemaFor('followupboss'));
    expect(again.items.every((i) => i.outcome === 'already present')).toBe(true);
    expect(again.pipelines).toEqual(stages.toJSON());
    const pipelines = await adapter.listPipelines('deal');
    expect(pipelines.map((p) => p.label)).toEqual(
      expect.arrayContaining(['Buyers', 'Sellers', 'Cash offers', 'Cash offer marketplace']),
    );
    expect(emulator.state.count('deals')).toBe(0);
  });

  it('setup-crm behind a gateway that loses every create answer (502 after storing) finds what it made', async () => {
    const lossy = await startFollowUpBossEmulator({ port: 0, rateLimit: null });
    try {
      await fubControl(lossy, 'PUT', 'faults', { errorAfterCommitRate: 1, match: 'POST /' });
      const setup = new FollowUpBossCrmAdapter({
        apiKey: lossy.apiKey,
        baseUrl: lossy.url,
        systemKey: lossy.systemKey,
        rateLimit: { max: 10_000, intervalMs: 1000 },
        retryBaseDelayMs: 10,
      });
      const report = await setup.ensureSchema(crmSchemaFor('followupboss'));
      expect(
        report.items.filter((i) => i.item.startsWith('property')).every((i) => i.outcome === 'created'),
      ).toBe(true);
      expect(Object.keys(report.pipelines)).toEqual(Object.keys(stages.toJSON()));
      await fubControl(lossy, 'DELETE', 'faults');
      const again = await setup.ensureSchema(crmSchemaFor('followupboss'));
      expect(again.items.every((i) => i.outcome === 'already present')).toBe(true);
      expect(again.pipelines).toEqual(report.pipelines);
    } finally {
      await lossy.close();
    }
  });

  it("tells whether deals have a property, from /v1/dealCustomFields or a deal's own fields", async () => {
    expect(await adapter.findProperty('deal', 'cash_offer_request_trigger')).toMatchObject({
      crmName: 'customCashOfferRequestTrigger',
      exists: true,
    });
    // FUB's own name for it reads the same field.
    expect(await adapter.findProperty('deal', 'customCashOfferRequestTrigger')).toMatchObject({
      exists: true,
    });
    expect(await adapter.findProperty('deal', 'price')).toMatchObject({ exists: true });
    const missing = await adapter.findProperty('deal', 'acme_go');
    expect(missing).toMatchObject({ crmName: 'customAcmeGo', exists: false });
    expect(missing?.custom).toContainEqual({
      name: 'customCashOfferRequestTrigger',
      label: 'Cash Offer Request Trigger',
    });
    expect(await adapter.findProperty('deal', 'colour')).toMatchObject({ exists: false });
    await expect(build({ apiKey: 'wrong' }).findProperty('deal', 'acme_go')).rejects.toMatchObject({
      code: 'AUTH_FAILED',
    });
  });

  it('registers the change webhooks once, moves ours when the address changes, and needs the system key', async () => {
    const url = 'https://sync.example/webhooks/crm/followupboss/acme';
    const first = await adapter.subscribeToChanges(url);
    expect(first).toEqual({
      supported: true,
      items: ['peopleCreated', 'peopleUpdated', 'dealsCreated', 'dealsUpdated'].map((event) => ({
        item: `webhook ${event}`,
        outcome: 'created',
      })),
    });
    const again = await build().subscribeToChanges(url);
    expect(again.items.every((i) => i.outcome === 'already present')).toBe(true);
    const moved = await adapter.subscribeToChanges('https://new.example/webhooks/crm/followupboss/acme');
    expect(moved.items.every((i) => i.outcome === 'updated')).toBe(true);
    const hooks = (await (await fetch(`${emulator.url}/__control/webhooks`)).json()) as {
      id: number;
      url: string;
    }[];
    expect(hooks).toHaveLength(4);
    expect(hooks.every((h) => h.url === 'https://new.example/webhooks/crm/followupboss/acme')).toBe(true);
    await expect(build({ systemKey: undefined }).subscribeToChanges(url)).rejects.toThrow(
      /system key \(crm.systemKeyEnv or crm.systemKeyFile\)/,
    );
    // Gone before any record changes, so the emulator never tries to deliver off this machine.
    for (const hook of hooks)
      await fetch(`${emulator.url}/v1/webhooks/${hook.id}`, {
        method: 'DELETE',
        headers: {
          authorization: `Basic ${Buffer.from(`${emulator.apiKey}:`).toString('base64')}`,
          'X-System': emulator.system,
          'X-System-Key': emulator.systemKey,
        },
      });
    expect(await (await fetch(`${emulator.url}/__control/webhooks`)).json()).toEqual([]);
  });

  it('upserts by a custom key field: creates once, then updates the same deal, never a second create', async () => {
    const stageId = stages.stageId('cash_offers', 'incoming');
    const first = await adapter.upsertRecords('deal', UNIQUE_OFFER_ID, [
      { key: '501', properties: { name: 'Offer 501', cash_offer_offer_amount: '350000' }, stageId },
    ]);
    expect(first[0]).toMatchObject({ ok: true, created: true });
    // A fresh adapter (as after a restart) knows no id: it looks the key up instead of creating.
    const second = await build().upsertRecords('deal', UNIQUE_OFFER_ID, [
      { key: '501', properties: { name: 'Offer 501', cash_offer_offer_amount: '351000' } },
    ]);
    expect(second[0]).toMatchObject({ ok: true, created: false, id: first[0].ok && first[0].id });
    expect(emulator.state.findByField('deals', 'customCashOfferOfferId', '501')).toHaveLength(1);
    const [found] = await adapter.findByUniqueValues(
      'deal',
      UNIQUE_OFFER_ID,
      ['501', 'nope'],
      ['cash_offer_offer_amount'],
    );
    expect(found.properties).toMatchObject({ cash_offer_offer_amount: '351000', [UNIQUE_OFFER_ID]: '501' });
    expect(found.stageId).toBe(stageId);
    expect(found.pipelineId).toBe(stages.pipelineId('cash_offers'));
  });

  it('sends a stage move an agent may be making too once: a lost answer fails it, other updates are retried', async () => {
    const incoming = stages.stageId('cash_offers', 'incoming');
    const made = await adapter.upsertRecords('deal', UNIQUE_OFFER_ID, [
      { key: '521', properties: { name: 'Offer 521' }, stageId: incoming },
      { key: '522', properties: { name: 'Offer 522' }, stageId: incoming },
    ]);
    const [moved, other] = made.map((r) => (r.ok ? r.id : ''));
    const logged = ((await control(emulator, 'GET', 'log')) as unknown[]).length;
    await fubControl(emulator, 'PUT', 'faults', { errorAfterCommitRate: 1, match: 'PUT /' });
    let results;
    try {
      results = await adapter.updateRecords('deal', [
        { id: other, properties: { name: 'Offer 522, renamed' } },
        {
          id: moved,
          properties: {},
          stageId: stages.stageId('cash_offers', 'countered'),
          moveSentOnce: true,
        },
      ]);
    } finally {
      await fubControl(emulator, 'DELETE', 'faults');
    }
    expect(results.map((r) => (r.ok ? 'ok' : r.error.code))).toEqual(['UNAVAILABLE', 'OUTCOME_UNKNOWN']);
    const puts = ((await control(emulator, 'GET', 'log')) as { method: string; path: string }[])
      .slice(logged)
      .filter((c) => c.method === 'PUT');
    expect(puts.filter((c) => c.path === `/v1/deals/${moved}`)).toHaveLength(1);
    expect(puts.filter((c) => c.path === `/v1/deals/${other}`).length).toBeGreaterThan(1);
  });

  it('many new keys cost one scan instead of a lookup each; a restarted adapter finds them all again', async () => {
    const stageId = stages.stageId('cash_offers', 'incoming');
    const inputs = Array.from({ length: 30 }, (_, i) => ({
      key: `bulk-${i}`,
      properties: { name: `Bulk ${i}` },
      stageId,
    }));
    const fresh = build();
    await fresh.listPipelines('deal');
    const logged = ((await control(emulator, 'GET', 'log')) as unknown[]).length;
    const created = await fresh.upsertRecords('deal', UNIQUE_OFFER_ID, inputs);
    expect(created.every((r) => r.ok && r.created)).toBe(true);
    // One scan page and 30 creates (besides reading the custom field types once).
    const calls = ((await control(emulator, 'GET', 'log')) as { method: string; path: string }[]).slice(
      logged,
    );
    expect(calls.filter((c) => c.path === '/v1/deals' && c.method === 'GET')).toHaveLength(1);
    expect(calls.filter((c) => c.path === '/v1/deals' && c.method === 'POST')).toHaveLength(30);
    expect(calls.filter((c) => c.path.startsWith('/v1/deals'))).toHaveLength(31);
    const restarted = build();
    const again = await restarted.upsertRecords('deal', UNIQUE_OFFER_ID, inputs);
    expect(again.every((r) => r.ok && !r.created)).toBe(true);
    expect(emulator.state.findByField('deals', 'customCashOfferOfferId', 'bulk-7')).toHaveLength(1);
  });

  it('one key twice in one upsert makes one deal, written twice in order', async () => {
    const stageId = stages.stageId('cash_offers', 'incoming');
    const results = await build().upsertRecords('deal', UNIQUE_OFFER_ID, [
      { key: 'dup', properties: { name: 'First' }, stageId },
      { key: 'dup', properties: { name: 'Second' }, stageId },
    ]);
    expect(results.map((r) => r.ok && r.created)).toEqual([true, false]);
    const found = emulator.state.findByField('deals', 'customCashOfferOfferId', 'dup');
    expect(found).toHaveLength(1);
    expect(found[0].name).toBe('Second');
  });

  it('answers per record: a bad value fails its record with a CrmError naming it, the others are written', async () => {
    const stageId = stages.stageId('cash_offers', 'incoming');
    const results = await adapter.upsertRecords('deal', UNIQUE_OFFER_ID, [
      { key: '601', properties: { name: 'Good' }, stageId },
      { key: '602', properties: { name: 'Bad', cash_offer_offer_amount: 'lots' }, stageId },
      { key: '603', properties: { name: 'No stage' } },
    ]);
    expect(results[0]).toMatchObject({ ok: true });
    expect(results[1]).toMatchObject({ ok: false, error: { code: 'INVALID_RECORD' } });
    expect(!results[1].ok && results[1].error.message).toContain(
      'customCashOfferOfferAmount must be a number',
    );
    expect(results[2]).toMatchObject({ ok: false, error: { code: 'INVALID_RECORD' } });
  });

  it('people, deals and their links: roles through the vendor-neutral port, associations both ways', async () => {
    const port = new VendorNeutralCrmPort(adapter, FOLLOWUPBOSS_VENDOR_PROFILE);
    const [person] = await port.upsertRecords('contact', 'cash_offer_lead_id', [
      {
        key: 'lead-1',
        properties: { 'crm:first_name': 'Ada', 'crm:last_name': 'Buyer', 'crm:email': 'ada@example.com' },
      },
    ]);
    const [listing] = await port.upsertRecords('deal', UNIQUE_OFFER_ID, [
      {
        key: '701',
        properties: { 'crm:name': 'Listing 701', 'crm:amount': '425000' },
        stageId: stages.stageId('marketplace', 'active'),
      },
    ]);
    const [offer] = await port.upsertRecords('deal', UNIQUE_OFFER_ID, [
      {
        key: '702',
        properties: { 'crm:name': 'Offer 702' },
        stageId: stages.stageId('cash_offers', 'incoming'),
      },
    ]);
    if (!person.ok || !listing.ok || !offer.ok) throw new Error('setup failed');
    const linked = await port.associate([
      { from: { kind: 'deal', id: offer.id }, to: { kind: 'deal', id: listing.id } },
      { from: { kind: 'deal', id: listing.id }, to: { kind: 'contact', id: person.id } },
      { from: { kind: 'deal', id: listing.id }, to: { kind: 'contact', id: person.id } },
    ]);
    expect(linked.every((r) => r.ok)).toBe(true);
    const [readOffer] = await port.getRecords('deal', [offer.id], ['crm:name'], ['deal', 'contact']);
    expect(readOffer.associations).toEqual({ deal: [listing.id], contact: [] });
    const [readListing] = await port.getRecords(
      'deal',
      [listing.id],
      ['crm:name', 'crm:amount'],
      ['contact'],
    );
    expect(readListing.properties).toMatchObject({ 'crm:name': 'Listing 701', 'crm:amount': '425000' });
    expect(readListing.associations?.contact).toEqual([person.id]);
    const [readPerson] = await port.getRecords(
      'contact',
      [person.id],
      ['crm:email', 'crm:first_name'],
      ['deal'],
    );
    expect(readPerson.properties).toMatchObject({ 'crm:email': 'ada@example.com', 'crm:first_name': 'Ada' });
    expect(readPerson.associations?.deal).toEqual([listing.id]);
    const note = await port.addNote({
      body: 'Cash offer made',
      attachTo: [{ kind: 'deal', id: listing.id }],
    });
    expect(emulator.state.get('notes', note.id)).toMatchObject({ personId: Number(person.id) });
  });

  it('reads changes by update time with the composite cursor, across pages, filters applied', async () => {
    await control(emulator, 'POST', 'seed/deals', {
      count: 250,
      fields: { name: 'Seeded {i}', stageId: Number(stages.stageId('marketplace', 'active')) },
    });
    const { records, cursor } = await readAll(adapter, {
      kind: 'deal',
      since: null,
      properties: ['name'],
      filter: { pipelineId: stages.pipelineId('marketplace') },
      pageSize: 40,
    });
    expect(records.filter((r) => r.properties.name?.startsWith('Seeded'))).toHaveLength(250);
    expect(new Set(records.map((r) => r.id)).size).toBe(records.length);
    expect(records.every((r) => r.pipelineId === stages.pipelineId('marketplace'))).toBe(true);
    // Nothing changed: a second pass re-reads only the overlap window; after the window, nothing.
    await control(emulator, 'PUT', 'settings', { advanceClockMs: 10 * 60_000 });
    const [changed] = await adapter.updateRecords('deal', [
      { id: records[3].id, properties: { name: 'Changed' } },
    ]);
    expect(changed.ok).toBe(true);
    // The overlap window reads the unchanged ones again on purpose (callers skip them by hash);
    // the changed one comes last, newest.
    const later = await readAll(adapter, { kind: 'deal', since: cursor, properties: ['name'] });
    expect(later.records.at(-1)).toMatchObject({ id: records[3].id, properties: { name: 'Changed' } });
    const exact = await readAll(build({ overlapMs: 0 }), {
      kind: 'deal',
      since: cursor,
      properties: ['name'],
    });
    expect(exact.records.map((r) => r.id)).toEqual([records[3].id]);
  });

  it("honours FUB's 429 Retry-After and the 5xx backoff for reads, and names auth failures", async () => {
    await control(emulator, 'PUT', 'faults', { burst429: 2 });
    const pipelines = await adapter.listPipelines('deal');
    expect(pipelines.length).toBeGreaterThan(0);
    await control(emulator, 'PUT', 'faults', { errorRate: 1, errorStatus: 503 });
    await expect(adapter.listPipelines('deal')).rejects.toMatchObject({ code: 'UNAVAILABLE', status: 503 });
    await control(emulator, 'DELETE', 'faults');
    const log = (await control(emulator, 'GET', 'log')) as { path: string; status: number }[];
    expect(log.filter((l) => l.status === 429).length).toBeGreaterThanOrEqual(2);
    await expect(build({ apiKey: 'wrong' }).listPipelines('deal')).rejects.toMatchObject({
      code: 'AUTH_FAILED',
      status: 401,
    });
  });

  it('keeps to the account rate limit on its own, without spending calls on 429s', async () => {
    await control(emulator, 'PUT', 'settings', { rateLimit: { max: 10, windowMs: 1000 } });
    try {
      const paced = build({ rateLimit: { max: 10, intervalMs: 1000 }, rateLimitMarginMs: 50 });
      const started = Date.now();
      for (let i = 0; i < 25; i++) await paced.listPipelines('deal');
      expect(Date.now() - started).toBeGreaterThanOrEqual(2000);
      const log = (await control(emulator, 'GET', 'log')) as { status: number }[];
      expect(log.slice(-25).filter((l) => l.status === 429)).toHaveLength(0);
    } finally {
      await control(emulator, 'PUT', 'settings', { rateLimit: null });
    }
  });
});
