import type { Client } from '@hubspot/api-client';
import { CrmError } from '../crm.error';
import type { CrmKind, CrmRecord } from '../crm.types';
import { HUBSPOT_OBJECT, MAX_BATCH_INPUTS, PIPELINE_PROPERTY, STAGE_PROPERTY } from './hubspot.constants';
import type { HubSpotAssociationReader } from './hubspot-association.reader';
import { toCrmRecord } from './hubspot-record.mapper';
import type { HubSpotRequestRunner } from './hubspot-request.runner';

// Records by id or by a unique property, with one batch read per 100 (never a call per record).
// An id HubSpot does not know is simply absent from the answer.
export class HubSpotRecordReader {
  constructor(
    private readonly client: Client,
    private readonly runner: HubSpotRequestRunner,
    private readonly associations: HubSpotAssociationReader,
  ) {}

  async byIds(
    kind: CrmKind,
    ids: string[],
    properties: string[],
    withAssociations?: CrmKind[],
  ): Promise<CrmRecord[]> {
    const records = await this.read(kind, ids, properties);
    await this.associations.attach(kind, records, withAssociations);
    return records;
  }

  byUniqueValues(
    kind: CrmKind,
    uniqueProperty: string,
    values: string[],
    properties: string[],
  ): Promise<CrmRecord[]> {
    return this.read(kind, values, [...properties, uniqueProperty], uniqueProperty);
  }

  private async read(
    kind: CrmKind,
    ids: string[],
    properties: string[],
    idProperty?: string,
  ): Promise<CrmRecord[]> {
    const records: CrmRecord[] = [];
    const wanted = kind === 'deal' ? [...properties, PIPELINE_PROPERTY, STAGE_PROPERTY] : properties;
    for (let start = 0; start < ids.length; start += MAX_BATCH_INPUTS) {
      const chunk = ids.slice(start, start + MAX_BATCH_INPUTS);
      let answer;
      try {
        answer = await this.runner.run(
          { what: `read ${chunk.length} ${kind}s`, lane: 'general', idempotent: true },
          () =>
            this.client.crm.objects.batchApi.read(HUBSPOT_OBJECT[kind], {
              inputs: chunk.map((id) => ({ id })),
              properties: [...new Set(wanted)],
              propertiesWithHistory: [],
              ...(idProperty ? { idProperty } : {}),
            }),
        );
      } catch (error) {
        // HubSpot answers 404 when none of the ids exists (deleted deals): they are simply absent.
        if (error instanceof CrmError && error.code === 'NOT_FOUND') continue;
        throw error;
      }
      // Some unknown ids come back as 207 errors; the caller sees them as absent.
      records.push(...answer.results.map((o) => toCrmRecord(kind, o)));
    }
    return records;
  }
}
