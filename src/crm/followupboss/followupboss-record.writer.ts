import { CrmError } from '../crm.error';
import type { CrmKind, CrmPlacement, CrmUpdateInput, CrmUpsertInput, CrmWriteResult } from '../crm.types';
import { FUB_RESOURCE, MAX_PAGE } from './followupboss.constants';

// From this many unknown keys in one upsert, one scan of the pipeline beats a lookup per key.
const PREFETCH_AT = 20;
import { fubFieldName } from './followupboss-field-names';
import type { FollowUpBossHttpClient } from './followupboss-http.client';
import { toFubBody } from './followupboss-record.mapper';
import type { FubPage, FubRecord } from './followupboss.wire';

// FUB has no upsert (POST /v1/deals always creates), so an upsert is: the id this adapter already
// knows for the key, else a lookup by the custom key field, then an update or a create. A create is
// never sent twice: a create whose answer was lost is not retried here (the flows' ledger and the
// next lookup find the record it made).
export class FollowUpBossRecordWriter {
  // key -> record id, learned from creates and lookups, so a repeated upsert costs one call.
  private readonly known = new Map<string, string>();

  constructor(
    private readonly http: FollowUpBossHttpClient,
    private readonly concurrency: number,
    private readonly numberFields: (kind: CrmKind) => Promise<ReadonlySet<string>>,
  ) {}

  async upsert(kind: CrmKind, uniqueProperty: string, inputs: CrmUpsertInput[]): Promise<CrmWriteResult[]> {
    const numbers = await this.numberFields(kind);
    const absent = await this.prefetch(kind, uniqueProperty, inputs);
    // Two inputs with one key are written one after the other, so the second finds the first's
    // record instead of racing it to a second create.
    const chains = new Map<string, Promise<unknown>>();
    return this.each(inputs, (input) => {
      const previous = chains.get(input.key) ?? Promise.resolve();
      const write = previous
        .catch(() => undefined)
        .then(() => this.upsertOne(kind, uniqueProperty, input, numbers, absent));
      chains.set(input.key, write);
      return write;
    });
  }

  private async upsertOne(
    kind: CrmKind,
    uniqueProperty: string,
    input: CrmUpsertInput,
    numbers: ReadonlySet<string>,
    absent: Set<string>,
  ): Promise<CrmWriteResult> {
    const cacheKey = `${kind}\u0000${uniqueProperty}\u0000${input.key}`;
    const properties = { ...input.properties, [uniqueProperty]: input.key };
    const body = toFubBody(kind, properties, input, numbers);
    let id =
      this.known.get(cacheKey) ??
      (absent.has(input.key) ? undefined : await this.lookup(kind, uniqueProperty, input.key));
    if (id) {
      try {
        await this.put(kind, id, body, input.key, input);
        this.known.set(cacheKey, id);
        return { key: input.key, ok: true, id, created: false };
      } catch (error) {
        // Deleted in FUB since we learned its id: forget it and look again.
        if (!(error instanceof CrmError && error.code === 'NOT_FOUND')) throw error;
        this.known.delete(cacheKey);
        id = await this.lookup(kind, uniqueProperty, input.key);
        if (id) {
          await this.put(kind, id, body, input.key, input);
          this.known.set(cacheKey, id);
          return { key: input.key, ok: true, id, created: false };
        }
      }
    }
    if (kind === 'deal' && body.stageId === undefined)
      throw new CrmError('INVALID_RECORD', `create deal ${input.key}: a Follow Up Boss deal needs a stage`, {
        record: input.key,
      });
    if (kind === 'deal' && !body.name) body.name = input.key;
    const created = await this.http.call<FubRecord>({
      method: 'POST',
      path: `/${FUB_RESOURCE[kind]}`,
      body,
      what: `create ${kind} ${input.key}`,
      idempotent: false,
      record: input.key,
    });
    const newId = String(created.id);
    this.known.set(cacheKey, newId);
    // Created now: a second input with this key must update it, not look for it as absent.
    absent.delete(input.key);
    return { key: input.key, ok: true, id: newId, created: true };
  }

  async update(kind: CrmKind, inputs: CrmUpdateInput[]): Promise<CrmWriteResult[]> {
    const numbers = await this.numberFields(kind);
    return this.each(
      inputs.map((i) => ({ ...i, key: i.id })),
      async (input) => {
        await this.put(kind, input.id, toFubBody(kind, input.properties, input, numbers), input.id, input);
        return { key: input.id, ok: true, id: input.id, created: false };
      },
    );
  }

  // Many new deal keys: one scan of all deals (100 a call) finds every key the account holds, instead
  // of one lookup per key, when that costs fewer calls. Keys the scan does not find are known absent
  // (a consistent read, and this daemon is the only writer of its keys), so their create needs no
  // lookup. A scan that would cost more than the lookups is not made.
  private async prefetch(
    kind: CrmKind,
    uniqueProperty: string,
    inputs: CrmUpsertInput[],
  ): Promise<Set<string>> {
    const unknown = inputs.filter((i) => !this.known.has(`${kind}\u0000${uniqueProperty}\u0000${i.key}`));
    if (kind !== 'deal' || unknown.length < PREFETCH_AT) return new Set();
    const field = fubFieldName(uniqueProperty);
    const wanted = new Set(unknown.map((i) => i.key));
    const found = new Map<string, string>();
    let next: string | undefined;
    let first = true;
    do {
      const page = await this.http.call<FubPage>({
        method: 'GET',
        path: '/deals',
        query: next ? { next, limit: MAX_PAGE } : { fields: 'allFields', limit: MAX_PAGE, sort: 'id' },
        what: 'list deals to find their keys',
        idempotent: true,
      });
      if (first && Math.ceil((page._metadata?.total ?? 0) / MAX_PAGE) > unknown.length) return new Set();
      first = false;
      for (const deal of (page.deals as FubRecord[] | undefined) ?? []) {
        const key = deal[field];
        if ((typeof key === 'string' || typeof key === 'number') && wanted.has(String(key)))
          found.set(String(key), String(deal.id));
      }
      next = page._metadata?.next ?? undefined;
    } while (next);
    for (const [key, id] of found) {
      this.known.set(`${kind}\u0000${uniqueProperty}\u0000${key}`, id);
      wanted.delete(key);
    }
    return wanted;
  }

  // The record holding `value` in the custom key field, by FUB's custom-field filter on the list.
  async lookup(kind: CrmKind, uniqueProperty: string, value: string): Promise<string | undefined> {
    const found = await this.findAll(kind, uniqueProperty, value);
    return found[0] ? String(found[0].id) : undefined;
  }

  async findAll(kind: CrmKind, uniqueProperty: string, value: string): Promise<FubRecord[]> {
    const field = fubFieldName(uniqueProperty);
    const resource = FUB_RESOURCE[kind];
    const page = await this.http.call<FubPage>({
      method: 'GET',
      path: `/${resource}`,
      query: { [field]: value, fields: 'allFields', limit: 100, sort: 'id' },
      what: `find the ${kind} whose ${uniqueProperty} is ${value}`,
      idempotent: true,
      record: value,
    });
    // Compared here too: a filter FUB ignored must not make us write onto another record.
    return ((page[resource] as FubRecord[] | undefined) ?? []).filter(
      (r) => r[field] !== null && r[field] !== undefined && String(r[field] as string | number) === value,
    );
  }

  // `placement.moveSentOnce`: not sent again after a lost answer (only a 429, which FUB did not act on).
  private async put(
    kind: CrmKind,
    id: string,
    body: Record<string, unknown>,
    record: string,
    placement: CrmPlacement,
  ): Promise<void> {
    await this.http.call({
      method: 'PUT',
      path: `/${FUB_RESOURCE[kind]}/${encodeURIComponent(id)}`,
      body,
      what: `update ${kind} ${id}`,
      idempotent: placement.moveSentOnce !== true,
      record,
    });
  }

  // One record's failure is its own: the others go on.
  private async each<I extends { key: string }>(
    inputs: I[],
    write: (input: I) => Promise<CrmWriteResult>,
  ): Promise<CrmWriteResult[]> {
    const results = new Array<CrmWriteResult>(inputs.length);
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < inputs.length) {
        const i = next++;
        try {
          results[i] = await write(inputs[i]);
        } catch (error) {
          const crmError =
            error instanceof CrmError
              ? error
              : new CrmError('UNAVAILABLE', String(error), { record: inputs[i].key });
          results[i] = { key: inputs[i].key, ok: false, error: crmError };
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.concurrency, inputs.length) }, worker));
    return results;
  }
}
