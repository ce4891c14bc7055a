import type { Client } from '@hubspot/api-client';
import { CrmError } from '../crm.error';
import type { CrmKind, CrmRecord, CrmStageChange } from '../crm.types';
import {
  HUBSPOT_OBJECT,
  MAX_BATCH_INPUTS,
  MAX_HISTORY_BATCH_INPUTS,
  PIPELINE_PROPERTY,
  STAGE_PROPERTY,
} from './hubspot.constants';
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

  // Each deal's `dealstage` history, newest first. HubSpot lists a property's history newest first in
  // its examples; it is sorted here all the same, on the time each value was set, so that an answer in
  // another order cannot turn "what came just before" around. A batch read asking for history takes at
  // most 50 inputs ("The maximum number of inputs supported in a batch request for property histories
  // is 50"), not the 100 of a plain read.
  async stageHistory(ids: string[]): Promise<Map<string, CrmStageChange[]>> {
    const histories = new Map<string, CrmStageChange[]>();
    for (let start = 0; start < ids.length; start += MAX_HISTORY_BATCH_INPUTS) {
      const chunk = ids.slice(start, start + MAX_HISTORY_BATCH_INPUTS);
      let answer;
      try {
        answer = await this.runner.run(
          { what: `read the stage history of ${chunk.length} deals`, lane: 'general', idempotent: true },
          () =>
            this.client.crm.objects.batchApi.read(HUBSPOT_OBJECT.deal, {
              inputs: chunk.map((id) => ({ id })),
              properties: [STAGE_PROPERTY],
              propertiesWithHistory: [STAGE_PROPERTY],
            }),
        );
      } catch (error) {
        if (error instanceof CrmError && error.code === 'NOT_FOUND') continue;
        throw error;
      }
      for (const deal of answer.results) {
        const entries = deal.propertiesWithHistory?.[STAGE_PROPERTY] ?? [];
        const changes = entries
          .filter((e) => typeof e.value === 'string' && e.value !== '')
          .map((e) => ({ stageId: e.value, at: new Date(e.timestamp).toISOString() }));
        histories.set(
          deal.id,
          changes.sort((a, b) => Date.parse(b.at) - Date.parse(a.at)),
        );
      }
    }
    return histories;
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
