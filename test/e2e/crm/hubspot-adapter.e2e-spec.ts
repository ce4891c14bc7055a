import type {
  CrmChangePage,
  CrmCursor,
  CrmRecord,
  CrmUpsertInput,
  ReadChangesOptions,
} from '../../../src/crm';
import { CASH_OFFER_CRM_SCHEMA, CrmError, CrmStageMap, UNIQUE_REQUEST_ID } from '../../../src/crm';
import { HubSpotCrmAdapter } from '../../../src/crm/hubspot';
import { DEFAULT_SEARCH_INDEX_LAG_MS, startHubSpotEmulator } from '../../../sandbox/hubspot';
import type { HubSpotEmulator } from '../../../sandbox/hubspot';
import { freePort } from '../../support/free-port';
import { waitFor } from '../../support/wait-for';
import { EmulatorControl } from './emulator-control';

async function readAll(
  adapter: HubSpotCrmAdapter,
  options: ReadChangesOptions,
): Promise<{ records: CrmRecord[]; cursor: CrmCursor | null }> {
  const records: CrmRecord[] = [];
  let cursor: CrmCursor | null = options.since;
  for await (const page of adapter.readChanges(options)) {
    records.push(...page.records);
    cursor = page.cursor;
  }
  return { records, cursor };
}

// Some cases move 10,000+ records or wait out rate limits; a shared 2-core machine needs headroom.
jest.setTimeout(30_000);

describe('HubSpotCrmAdapter against the HubSpot emulator', () => {
  let emulator: HubSpotEmulator;
  let control: EmulatorControl;
  let adapter: HubSpotCrmAdapter;

  beforeAll(async () => {
    // The search indexing lag stays at the emulator's default (on): the adapter must be right under it.
    emulator = await startHubSpotEmulator({
      port: await freePort(),
      token: 'pat-crm',
      rateLimit: null,
      searchPerSecond: null,
    });
    control = new EmulatorControl(emulator.url);
  });

  afterAll(async () => {
    await emulator.close();
  });

  beforeEach(async () => {
    await control.reset();
    // Generous client limits: these tests are about behaviour, the bench is about speed.
    adapter = new HubSpotCrmAdapter({
      accessToken: 'pat-crm',
      basePath: emulator.url,
      rateLimit: { max: 10_000, intervalMs: 1000 },
      searchRateLimit: { max: 1000, intervalMs: 1000 },
      searchLagMs: DEFAULT_SEARCH_INDEX_LAG_MS,
    });
    await adapter.ensureSchema(CASH_OFFER_CRM_SCHEMA);
    await control.clearRequests();
  });

  it('setup-crm creates everything once and reports "already present" the second time', async () => {
    await control.reset();
    const first = await adapter.ensureSchema(CASH_OFFER_CRM_SCHEMA);
    expect(new Set(first.items.map((i) => i.outcome))).toEqual(new Set(['created']));
    const schema = CASH_OFFER_CRM_SCHEMA;
    const stages = schema.pipelines.reduce((n, p) => n + p.stages.length, 0);
    const expectedItems = 2 + schema.properties.length + schema.pipelines.length + stages;
    expect(first.items).toHaveLength(expectedItems);

    const second = await adapter.ensureSchema(CASH_OFFER_CRM_SCHEMA);
    expect(new Set(second.items.map((i) => i.outcome))).toEqual(new Set(['already present']));
    expect(second.pipelines).toEqual(first.pipelines);

    const map = CrmStageMap.fromReport(second);
    const pipelines = await adapter.listPipelines('deal');
    const cashOffers = pipelines.find((p) => p.id === map.pipelineId('cash_offers'))!;
    expect(cashOffers.stages.map((s) => s.label)).toContain('Accept requested');
    const acceptId = map.stageId('cash_offers', 'accept_requested');
    expect(map.resolve(cashOffers.id, acceptId)).toEqual({
      pipelineKey: 'cash_offers',
      stageKey: 'accept_requested',
    });
    expect(pipelines.map((p) => p.id)).toContain('default');
  });

  it('setup-crm behind a gateway that loses every create answer (502 after storing) makes each thing once', async () => {
    await control.reset();
    await control.put('faults', {
      errorAfterCommitRate: 1,
      match: ['POST /crm/v3/properties/', 'POST /crm/v3/pipelines/'],
    });
    // Each create is looked for once its answer is lost, not sent again: setup goes through.
    const report = await adapter.ensureSchema(CASH_OFFER_CRM_SCHEMA);
    expect(new Set(report.items.map((i) => i.outcome))).toEqual(new Set(['created']));
    await control.put('faults', { errorAfterCommitRate: 0, match: null });
    const second = await adapter.ensureSchema(CASH_OFFER_CRM_SCHEMA);
    expect(second.items.filter((i) => i.outcome !== 'already present')).toEqual([]);
    const pipelines = await adapter.listPipelines('deal');
    const labels = pipelines.map((p) => p.label);
    expect(labels.filter((l) => l === 'Cash offers')).toHaveLength(1);
    for (const pipeline of pipelines) {
      const stageLabels = pipeline.stages.map((s) => s.label);
      expect(new Set(stageLabels).size).toBe(stageLabels.length);
    }
    expect(second.pipelines).toEqual(report.pipelines);
  });

  it('setup-crm makes the properties in batches, not one call each (a new portal keeps its burst budget)', async () => {
    await control.reset();
    await control.clearRequests();
    await adapter.ensureSchema(CASH_OFFER_CRM_SCHEMA);
    const posts = (await control.requests()).filter((r) => r.method === 'POST');
    const batches = posts.filter((r) => /^\/crm\/v3\/properties\/[^/]+\/batch\/create$/.test(r.path));
    const kinds = new Set(CASH_OFFER_CRM_SCHEMA.properties.map((p) => p.kind));
    expect(batches).toHaveLength(kinds.size);
    expect(posts.filter((r) => /^\/crm\/v3\/properties\/[^/]+$/.test(r.path))).toEqual([]);
  });

  it('setup-crm: a property the batch refuses is tried alone, and its error names it; the rest are made', async () => {
    await control.reset();
    const stray = {
      kind: 'deal' as const,
      name: 'acme_stray',
      label: 'Stray',
      type: 'string' as const,
      group: 'no_such_group',
    };
    const spec = { ...CASH_OFFER_CRM_SCHEMA, properties: [...CASH_OFFER_CRM_SCHEMA.properties, stray] };
    const error = await adapter.ensureSchema(spec).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(CrmError);
    expect((error as CrmError).message).toMatch(/property deal\.acme_stray/);
    expect((error as CrmError).message).toMatch(/no_such_group/);
    expect((await adapter.findProperty('deal', 'cash_offer_request_id')).exists).toBe(true);
    expect((await adapter.findProperty('deal', 'acme_stray')).exists).toBe(false);
  });

  it("tells whether deals have a property, from the properties API, with the account's custom ones", async () => {
    const found = await adapter.findProperty('deal', 'cash_offer_request_trigger');
    expect(found).toMatchObject({ crmName: 'cash_offer_request_trigger', exists: true });
    // HubSpot's own properties exist too, and are not offered as the account's custom ones.
    expect(await adapter.findProperty('deal', 'dealname')).toMatchObject({ exists: true });
    const missing = await adapter.findProperty('deal', 'acme_go');
    expect(missing.exists).toBe(false);
    expect(missing.custom).toContainEqual({
      name: 'cash_offer_request_trigger',
      label: 'Request cash offer',
    });
    expect(missing.custom.map((p) => p.name)).not.toContain('dealname');
    await control.put('faults', { errorRate: 1, errorStatus: 503 });
    await expect(adapter.findProperty('deal', 'acme_go')).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    await control.put('faults', { errorRate: 0 });
  });

  it('upserts by unique key with one result per input; a bad record fails alone, naming the field', async () => {
    const inputs: CrmUpsertInput[] = [
      { key: 'r-1', properties: { dealname: 'One', cash_offer_request_status: 'in_review' } },
      { key: 'r-2', properties: { dealname: 'Two', cash_offer_offer_count: 'many' } },
      { key: 'r-3', properties: { dealname: 'Three' } },
    ];
    const first = await adapter.upsertRecords('deal', UNIQUE_REQUEST_ID, inputs);
    expect(first.map((r) => r.ok)).toEqual([true, false, true]);
    expect(first[0]).toMatchObject({ key: 'r-1', ok: true, created: true });
    const failure = first[1];
    if (failure.ok) throw new Error('expected a failure');
    expect(failure.error).toBeInstanceOf(CrmError);
    expect(failure.error.code).toBe('INVALID_RECORD');
    expect(failure.error.fields).toEqual(['cash_offer_offer_count']);
    expect(failure.error.message).toContain('r-2');
    expect(failure.error.message).toContain('cash_offer_offer_count');

    const again = await adapter.upsertRecords('deal', UNIQUE_REQUEST_ID, [inputs[0], inputs[2]]);
    expect(again).toEqual([
      { key: 'r-1', ok: true, id: (first[0] as { id: string }).id, created: false },
      { key: 'r-3', ok: true, id: (first[2] as { id: string }).id, created: false },
    ]);
    expect(emulator.state.count('deals')).toBe(2);
  });

  it("sends a new record's first stage in a call of its own, so a lost answer leaves the linked records' updates retried", async () => {
    const [made] = await adapter.upsertRecords('deal', UNIQUE_REQUEST_ID, [
      { key: 'r-linked', properties: { dealname: 'Linked' } },
    ]);
    expect(made.ok).toBe(true);
    await control.clearRequests();
    await control.put('faults', {
      errorAfterCommitRate: 1,
      match: 'POST /crm/v3/objects/deals/batch/upsert',
    });
    let results;
    try {
      results = await adapter.upsertRecords('deal', UNIQUE_REQUEST_ID, [
        { key: 'r-linked', properties: { dealname: 'Linked, renamed' } },
        { key: 'r-new', properties: { dealname: 'New' }, stageOnCreateOnly: true },
      ]);
    } finally {
      await control.put('faults', { errorAfterCommitRate: 0, match: null });
    }
    // The new record's call is sent once (a retry could undo an agent's move); the update's is
    // retried like any idempotent write. Before, both went in one call that was sent once.
    const calls = (await control.requests()).filter((r) => r.path.endsWith('/deals/batch/upsert'));
    expect(calls.length).toBeGreaterThanOrEqual(3);
    expect(results.map((r) => (r.ok ? 'ok' : r.error.code))).toEqual(['UNAVAILABLE', 'OUTCOME_UNKNOWN']);
    // Both were stored all the same (the gateway lost the answers, not the writes).
    expect(emulator.state.count('deals')).toBe(2);
    expect(emulator.state.findByProperty('deals', UNIQUE_REQUEST_ID, 'r-linked')?.properties.dealname).toBe(
      'Linked, renamed',
    );
    expect(emulator.state.findByProperty('deals', UNIQUE_REQUEST_ID, 'r-new')?.properties.dealname).toBe(
      'New',
    );
  });

  it('sends a stage move an agent may be making too in a call of its own, never again after a lost answer', async () => {
    const made = await adapter.upsertRecords('deal', UNIQUE_REQUEST_ID, [
      { key: 'm-moved', properties: { dealname: 'Moved' } },
      { key: 'm-other', properties: { dealname: 'Other' } },
    ]);
    const [moved, other] = made.map((r) => (r.ok ? r.id : ''));
    await control.clearRequests();
    await control.put('faults', {
      errorAfterCommitRate: 1,
      match: 'POST /crm/v3/objects/deals/batch/update',
    });
    let results;
    try {
      results = await adapter.updateRecords('deal', [
        { id: other, properties: { dealname: 'Other, renamed' } },
        { id: moved, properties: {}, pipelineId: 'default', stageId: 'closedlost', moveSentOnce: true },
      ]);
    } finally {
      await control.put('faults', { errorAfterCommitRate: 0, match: null });
    }
    // The move's call is sent once (a retry could put back a move the agent made in between); the
    // other update's is retried like any idempotent write.
    const calls = (await control.requests()).filter((r) => r.path.endsWith('/deals/batch/update'));
    expect(calls.length).toBeGreaterThanOrEqual(3);
    expect(results.map((r) => (r.ok ? 'ok' : r.error.code))).toEqual(['UNAVAILABLE', 'OUTCOME_UNKNOWN']);
    expect(emulator.state.findByProperty('deals', UNIQUE_REQUEST_ID, 'm-moved')?.properties.dealstage).toBe(
      'closedlost',
    );
  });

  it('writes 250 records in 3 calls of at most 100', async () => {
    const inputs = Array.from({ length: 250 }, (_, i) => ({
      key: `k-${i}`,
      properties: { dealname: `Deal ${i}` },
    }));
    const results = await adapter.upsertRecords('deal', UNIQUE_REQUEST_ID, inputs);
    expect(results.every((r) => r.ok)).toBe(true);
    expect(results.map((r) => r.key)).toEqual(inputs.map((i) => i.key));
    const calls = (await control.requests()).filter((r) => r.path.endsWith('/batch/upsert'));
    expect(calls).toHaveLength(3);
  });

  it('moves a record to a stage by logical key and reports an unknown id alone on update', async () => {
    await control.reset();
    const map = CrmStageMap.fromReport(await adapter.ensureSchema(CASH_OFFER_CRM_SCHEMA));
    const [created] = await adapter.upsertRecords('deal', 'cash_offer_offer_id', [
      {
        key: 'o-1',
        properties: { dealname: 'Offer 1' },
        pipelineId: map.pipelineId('cash_offers'),
        stageId: map.stageId('cash_offers', 'incoming'),
      },
    ]);
    if (!created.ok) throw created.error;
    const results = await adapter.updateRecords('deal', [
      { id: created.id, properties: {}, stageId: map.stageId('cash_offers', 'accepted') },
      { id: '987654', properties: { dealname: 'ghost' } },
    ]);
    expect(results[0]).toEqual({ key: created.id, ok: true, id: created.id, created: false });
    expect(results[1].ok).toBe(false);
    expect(!results[1].ok && results[1].error.code).toBe('NOT_FOUND');
    const [record] = await adapter.getRecords('deal', [created.id], ['dealname']);
    expect(map.resolve(record.pipelineId, record.stageId)).toEqual({
      pipelineKey: 'cash_offers',
      stageKey: 'accepted',
    });
  });

  it("reads deals' stage histories newest first, 50 deals a call, an agent's UI move among the daemon's", async () => {
    await control.reset();
    const map = CrmStageMap.fromReport(await adapter.ensureSchema(CASH_OFFER_CRM_SCHEMA));
    const stage = (key: string) => map.stageId('cash_offers', key);
    const inputs = Array.from({ length: 60 }, (_, i) => ({
      key: `o-${i}`,
      properties: { dealname: `Offer ${i}` },
      pipelineId: map.pipelineId('cash_offers'),
      stageId: stage('incoming'),
    }));
    const written = await adapter.upsertRecords('deal', 'cash_offer_offer_id', inputs);
    const ids = written.map((w) => (w.ok ? w.id : ''));
    // The agent moves the first deal in HubSpot's UI, then the daemon moves it on.
    const moved = await fetch(`${emulator.url}/__control/objects/deals/${ids[0]}/ui-change`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ properties: { dealstage: stage('reject_requested') } }),
    });
    expect(moved.status).toBe(200);
    await adapter.updateRecords('deal', [{ id: ids[0], properties: {}, stageId: stage('rejected') }]);
    await control.clearRequests();

    const histories = await adapter.stageHistory([...ids, '987654']);
    expect(histories.get(ids[0])!.map((c) => c.stageId)).toEqual([
      stage('rejected'),
      stage('reject_requested'),
      stage('incoming'),
    ]);
    expect(histories.get(ids[59])!.map((c) => c.stageId)).toEqual([stage('incoming')]);
    expect(histories.has('987654')).toBe(false);
    const times = histories.get(ids[0])!.map((c) => Date.parse(c.at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    const reads = (await control.requests()).filter((r) => r.path.endsWith('/deals/batch/read'));
    expect(reads).toHaveLength(2);
  });

  it('reads past the 10,000-results cap, ties included, every record exactly once', async () => {
    // 21 groups of 500 deals, each group sharing one modification time.
    const base = Date.parse('2026-01-01T00:00:00Z');
    for (let g = 0; g < 21; g++) {
      await control.seed({
        type: 'deals',
        count: 500,
        startIndex: g * 500,
        properties: { dealname: 'Seeded {i}' },
        modifiedAt: new Date(base + g * 1000).toISOString(),
      });
    }
    await control.clearRequests();
    const { records, cursor } = await readAll(adapter, {
      kind: 'deal',
      since: null,
      properties: ['dealname'],
    });
    expect(records).toHaveLength(10_500);
    expect(new Set(records.map((r) => r.id)).size).toBe(10_500);
    expect(cursor?.updatedAt).toBe(new Date(base + 20_000).toISOString());
    const searches = await control.requests();
    expect(searches.every((r) => r.status === 200)).toBe(true);
  });

  it('does not lose a record modified during a read, despite the search indexing lag', async () => {
    await control.seed({
      type: 'deals',
      count: 600,
      properties: { dealname: 'Listing {i}' },
      modifiedAt: new Date(Date.now() - 60_000).toISOString(),
    });
    const pages: CrmChangePage[] = [];
    let modified: string[] = [];
    for await (const page of adapter.readChanges({
      kind: 'deal',
      since: null,
      properties: ['dealname'],
      pageSize: 200,
    })) {
      pages.push(page);
      if (pages.length === 1) {
        // One record already read and one not yet read change while the read goes on.
        const ids = [page.records[0].id, String(Number(page.records[0].id) + 450)];
        const results = await adapter.updateRecords(
          'deal',
          ids.map((id) => ({ id, properties: { dealname: `changed ${id}` } })),
        );
        expect(results.every((r) => r.ok)).toBe(true);
        modified = ids;
      }
    }
    const firstRun = pages.flatMap((p) => p.records);
    expect(new Set(firstRun.map((r) => r.id)).size).toBe(600);
    const cursor = pages[pages.length - 1].cursor;

    // Once the index has caught up, the next run (from the saved cursor, minus the overlap) sees both changes.
    await waitFor(
      async () => {
        const { records } = await readAll(adapter, { kind: 'deal', since: cursor, properties: ['dealname'] });
        const names = new Map(records.map((r) => [r.id, r.properties.dealname]));
        return modified.every((id) => names.get(id) === `changed ${id}`);
      },
      {
        what: 'both changes in the run from the saved cursor',
        timeoutMs: DEFAULT_SEARCH_INDEX_LAG_MS + 10_000,
        intervalMs: 250,
      },
    );
  });

  it('fetches associated contacts with one batch call per page, never one per record', async () => {
    const deals = await adapter.upsertRecords(
      'deal',
      UNIQUE_REQUEST_ID,
      Array.from({ length: 3 }, (_, i) => ({ key: `a-${i}`, properties: { dealname: `A${i}` } })),
    );
    const contact = await adapter.upsertRecords('contact', 'email', [
      { key: 'seller@example.com', properties: { firstname: 'Sam' } },
    ]);
    if (!contact[0].ok) throw contact[0].error;
    const contactId = contact[0].id;
    const pairs = deals.map((d) => ({
      from: { kind: 'deal' as const, id: (d as { id: string }).id },
      to: { kind: 'contact' as const, id: contactId },
    }));
    const results = await adapter.associate([
      ...pairs,
      { from: { kind: 'deal', id: '999999' }, to: { kind: 'contact', id: contactId } },
    ]);
    expect(results.map((r) => r.ok)).toEqual([true, true, true, false]);
    expect(!results[3].ok && results[3].error.code).toBe('NOT_FOUND');

    // The new deals show in search once the index has caught up.
    let records: CrmRecord[] = [];
    await waitFor(
      async () => {
        await control.clearRequests();
        ({ records } = await readAll(adapter, {
          kind: 'deal',
          since: null,
          properties: ['dealname'],
          withAssociations: ['contact'],
        }));
        return records.length === 3;
      },
      {
        what: 'the three new deals in search',
        timeoutMs: DEFAULT_SEARCH_INDEX_LAG_MS + 5000,
        intervalMs: 250,
      },
    );
    expect(records.map((r) => r.associations?.contact)).toEqual([[contactId], [contactId], [contactId]]);
    const assocCalls = (await control.requests()).filter((r) => r.path.startsWith('/crm/v4/associations/'));
    expect(assocCalls).toHaveLength(1);

    // Offer records are deals too: deal-to-deal links (HubSpot type 451) read back from both sides.
    const offer = await adapter.upsertRecords('deal', 'cash_offer_offer_id', [
      { key: 'o-9', properties: { dealname: 'Offer' } },
    ]);
    if (!offer[0].ok) throw offer[0].error;
    const linked = await adapter.associate([
      { from: { kind: 'deal', id: offer[0].id }, to: { kind: 'deal', id: records[0].id } },
    ]);
    expect(linked[0].ok).toBe(true);
    const [listing] = await adapter.getRecords('deal', [records[0].id], ['dealname'], ['deal', 'contact']);
    expect(listing.associations).toEqual({ deal: [offer[0].id], contact: [contactId] });

    const note = await adapter.addNote({
      body: 'Offer accepted',
      attachTo: [{ kind: 'deal', id: records[0].id }],
    });
    expect(emulator.state.associatedIds('deals', records[0].id, 'notes')).toEqual([note.id]);
  });

  it('reads only the records a filter names: stage of a pipeline, flagged contacts', async () => {
    await control.reset();
    const map = CrmStageMap.fromReport(await adapter.ensureSchema(CASH_OFFER_CRM_SCHEMA));
    const pipelineId = map.pipelineId('cash_offers');
    const offers = await adapter.upsertRecords(
      'deal',
      'cash_offer_offer_id',
      ['incoming', 'accept_requested', 'reject_requested'].map((stage, i) => ({
        key: `f-${i}`,
        properties: { dealname: `Offer ${i}` },
        pipelineId,
        stageId: map.stageId('cash_offers', stage),
      })),
    );
    let requested: CrmRecord[] = [];
    await waitFor(
      async () => {
        ({ records: requested } = await readAll(adapter, {
          kind: 'deal',
          since: null,
          properties: ['cash_offer_offer_id'],
          filter: {
            pipelineId,
            stageIds: [
              map.stageId('cash_offers', 'accept_requested'),
              map.stageId('cash_offers', 'reject_requested'),
            ],
          },
        }));
        return requested.length === 2;
      },
      {
        what: 'the two requested offers in search',
        timeoutMs: DEFAULT_SEARCH_INDEX_LAG_MS + 5000,
        intervalMs: 250,
      },
    );
    expect(requested.map((r) => r.properties.cash_offer_offer_id).sort()).toEqual(['f-1', 'f-2']);
    expect(requested.map((r) => map.resolve(r.pipelineId, r.stageId)?.stageKey).sort()).toEqual([
      'accept_requested',
      'reject_requested',
    ]);

    const contacts = await adapter.upsertRecords('contact', 'email', [
      { key: 'buyer@example.com', properties: { firstname: 'Bea', cash_offer_submit_lead: 'true' } },
      { key: 'other@example.com', properties: { firstname: 'Oli' } },
    ]);
    if (!contacts[0].ok || !offers[0].ok) throw new Error('setup failed');
    await adapter.associate([
      { from: { kind: 'contact', id: contacts[0].id }, to: { kind: 'deal', id: offers[0].id } },
    ]);
    let flagged: CrmRecord[] = [];
    let cursor: CrmCursor | null = null;
    await waitFor(
      async () => {
        ({ records: flagged, cursor } = await readAll(adapter, {
          kind: 'contact',
          since: null,
          properties: ['email', 'cash_offer_submit_lead'],
          filter: { propertyEquals: { cash_offer_submit_lead: 'true' }, propertyHasValue: ['email'] },
          withAssociations: ['deal'],
        }));
        return flagged.length === 1;
      },
      {
        what: 'the flagged contact in search',
        timeoutMs: DEFAULT_SEARCH_INDEX_LAG_MS + 5000,
        intervalMs: 250,
      },
    );
    expect(flagged).toHaveLength(1);
    expect(flagged[0]).toMatchObject({ kind: 'contact', properties: { email: 'buyer@example.com' } });
    expect(flagged[0].associations).toEqual({ deal: [offers[0].id] });
    expect(cursor).toEqual({ updatedAt: flagged[0].updatedAt, id: flagged[0].id });
  });

  it('waits on 429 answers and succeeds', async () => {
    await control.put('faults', { burst429: 3 });
    const results = await adapter.upsertRecords('deal', UNIQUE_REQUEST_ID, [
      { key: 'x-1', properties: { dealname: 'X' } },
    ]);
    expect(results[0].ok).toBe(true);
    expect((await control.requests()).map((r) => r.status)).toEqual([429, 429, 429, 200]);
  });

  it("waits out HubSpot's 423 Locked (2 s, as its docs say) and writes, never taking it for a refused record", async () => {
    await control.put('faults', { burst423: 1 });
    const results = await adapter.upsertRecords('deal', UNIQUE_REQUEST_ID, [
      { key: 'locked-1', properties: { dealname: 'Locked' } },
    ]);
    expect(results[0].ok).toBe(true);
    const requests = await control.requests();
    expect(requests.map((r) => r.status)).toEqual([423, 200]);
  });

  it('retries a 477 Migration in Progress after its short Retry-After, and leaves a long one to the caller', async () => {
    await control.put('faults', { burst477: 1, retryAfter477Seconds: 1 });
    const results = await adapter.upsertRecords('deal', UNIQUE_REQUEST_ID, [
      { key: 'migrating-1', properties: { dealname: 'Migrating' } },
    ]);
    expect(results[0].ok).toBe(true);
    expect((await control.requests()).map((r) => r.status)).toEqual([477, 200]);
    await control.put('faults', { burst477: 1, retryAfter477Seconds: 3600 });
    const [later] = await adapter.upsertRecords('deal', UNIQUE_REQUEST_ID, [
      { key: 'migrating-2', properties: { dealname: 'Migrating later' } },
    ]);
    expect(later.ok).toBe(false);
    expect(later.ok ? undefined : later.error).toMatchObject({
      code: 'UNAVAILABLE',
      retryable: true,
      retryAfterMs: 3_600_000,
    });
    await control.put('faults', { burst477: 0, retryAfter477Seconds: 3600 });
  });

  it('keeps writing when the portal limit is lower than the client was told', async () => {
    await control.put('settings', { rateLimit: { max: 4, intervalMs: 400 } });
    // More patience than the default, so a slow shared machine cannot exhaust the retries.
    const patient = new HubSpotCrmAdapter({
      accessToken: 'pat-crm',
      basePath: emulator.url,
      rateLimit: { max: 10_000, intervalMs: 1000 },
      maxRateLimitRetries: 12,
    });
    const inputs = Array.from({ length: 1000 }, (_, i) => ({
      key: `rl-${i}`,
      properties: { dealname: `R${i}` },
    }));
    const results = await patient.upsertRecords('deal', UNIQUE_REQUEST_ID, inputs);
    expect(results.every((r) => r.ok)).toBe(true);
    const statuses = (await control.requests()).map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses).toContain(429);
    await control.put('settings', { rateLimit: null });
  });

  it("told the portal's rolling limit, spends no request on a 429 across several windows", async () => {
    await control.put('settings', { rateLimit: { max: 5, intervalMs: 500 } });
    const paced = new HubSpotCrmAdapter({
      accessToken: 'pat-crm',
      basePath: emulator.url,
      rateLimit: { max: 5, intervalMs: 500 },
    });
    const write = (i: number) =>
      paced.upsertRecords('deal', UNIQUE_REQUEST_ID, [
        { key: `paced-${i}`, properties: { dealname: `P${i}` } },
      ]);
    const writeMany = (from: number, count: number) =>
      Promise.all(Array.from({ length: count }, (_, i) => write(from + i)));
    // Calls spread out the way a flow makes them: one, then most of a burst late in the window,
    // then more just after (where fixed windows would let twice the limit through), then a queue.
    const writes = [await write(0)];
    await new Promise((r) => setTimeout(r, 600));
    writes.push(...(await writeMany(1, 4)));
    await new Promise((r) => setTimeout(r, 150));
    writes.push(...(await writeMany(5, 25)));
    expect(writes.every(([result]) => result.ok)).toBe(true);
    const statuses = (await control.requests()).map((r) => r.status);
    expect(statuses).toHaveLength(30);
    expect(statuses.filter((s) => s === 429)).toEqual([]);
    await control.put('settings', { rateLimit: null });
  });

  it('retries 5xx for idempotent reads only, then reports UNAVAILABLE; a create, OUTCOME_UNKNOWN', async () => {
    await control.put('faults', { errorRate: 1, errorStatus: 503 });
    const read = adapter.getRecords('deal', ['1'], ['dealname']);
    await expect(read).rejects.toMatchObject({ code: 'UNAVAILABLE', retryable: true });
    expect(await control.requests()).toHaveLength(4);
    await control.clearRequests();
    await expect(adapter.addNote({ body: 'x', attachTo: [] })).rejects.toMatchObject({
      code: 'OUTCOME_UNKNOWN',
      status: 503,
    });
    expect(await control.requests()).toHaveLength(1);
    await control.put('faults', { errorRate: 0 });
    // A 502 after HubSpot stored the note: the caller is told it may have been made, not sent again.
    await control.put('faults', { errorAfterCommitRate: 1, match: 'POST /crm/v3/objects/notes' });
    await control.clearRequests();
    const lost = await adapter.addNote({ body: 'kept', attachTo: [] }).catch((error: unknown) => error);
    expect(lost).toMatchObject({ code: 'OUTCOME_UNKNOWN', status: 502 });
    expect(await control.requests()).toHaveLength(1);
    await control.put('faults', { errorAfterCommitRate: 0, match: null });
    const notes = (await (await fetch(`${emulator.url}/__control/objects/notes`)).json()) as {
      results: { properties: { hs_note_body?: string } }[];
    };
    expect(notes.results.filter((n) => n.properties.hs_note_body === 'kept')).toHaveLength(1);
  });

  it('reports a refused token as AUTH_FAILED', async () => {
    const wrong = new HubSpotCrmAdapter({ accessToken: 'nope', basePath: emulator.url });
    await expect(wrong.listPipelines('deal')).rejects.toMatchObject({
      code: 'AUTH_FAILED',
      retryable: false,
    });
  });
});
