import type { Client } from '@hubspot/api-client';
import { CrmError } from '../crm.error';
import type { CrmKind, CrmRecord } from '../crm.types';
import { HUBSPOT_OBJECT, MAX_ASSOCIATION_READ_INPUTS } from './hubspot.constants';
import type { HubSpotRequestRunner } from './hubspot-request.runner';

// Associated ids for many records with one v4 batch read per target kind (never a call per record).
export class HubSpotAssociationReader {
  constructor(
    private readonly client: Client,
    private readonly runner: HubSpotRequestRunner,
  ) {}

  async attach(kind: CrmKind, records: CrmRecord[], toKinds: CrmKind[] | undefined): Promise<void> {
    if (!toKinds || toKinds.length === 0 || records.length === 0) return;
    for (const toKind of toKinds) {
      const byId = await this.read(
        kind,
        toKind,
        records.map((r) => r.id),
      );
      for (const record of records) {
        record.associations = { ...record.associations, [toKind]: byId.get(record.id) ?? [] };
      }
    }
  }

  private async read(kind: CrmKind, toKind: CrmKind, ids: string[]): Promise<Map<string, string[]>> {
    const found = new Map<string, string[]>();
    // Each input may come back with a `paging.next.after` when one record has many links.
    let pending = ids.map((id) => ({ id, after: undefined as string | undefined }));
    while (pending.length > 0) {
      const chunk = pending.slice(0, MAX_ASSOCIATION_READ_INPUTS);
      pending = pending.slice(MAX_ASSOCIATION_READ_INPUTS);
      const response = await this.readPage(kind, toKind, chunk);
      // Ids without associations come back as 207 errors (or, all of them, as a 404); they have none.
      for (const result of response?.results ?? []) {
        const from = String(result._from.id);
        const list = found.get(from) ?? [];
        list.push(...result.to.map((t) => String(t.toObjectId)));
        found.set(from, list);
        const after = result.paging?.next?.after;
        if (after) pending.push({ id: from, after });
      }
    }
    return found;
  }

  private async readPage(kind: CrmKind, toKind: CrmKind, chunk: { id: string; after?: string }[]) {
    try {
      return await this.runner.run(
        {
          what: `read ${toKind} associations of ${chunk.length} ${kind}s`,
          lane: 'general',
          idempotent: true,
        },
        () =>
          this.client.crm.associations.v4.batchApi.getPage(HUBSPOT_OBJECT[kind], HUBSPOT_OBJECT[toKind], {
            inputs: chunk.map((c) => (c.after ? { id: c.id, after: c.after } : { id: c.id })),
          }),
      );
    } catch (error) {
      if (error instanceof CrmError && error.code === 'NOT_FOUND') return undefined;
      throw error;
    }
  }
}
