import type { CrmSchemaReport, CrmStageMapData } from './crm-schema.types';

export interface LogicalStage {
  pipelineKey: string;
  stageKey: string;
}

// Flows speak of pipelines and stages by logical key (`cash_offers` / `accept_requested`);
// the CRM knows them by ids it assigned. This resolves both ways.
export class CrmStageMap {
  private readonly byId = new Map<string, LogicalStage>();
  private readonly pipelineKeyById = new Map<string, string>();

  constructor(private readonly data: CrmStageMapData) {
    for (const [pipelineKey, pipeline] of Object.entries(data)) {
      this.pipelineKeyById.set(pipeline.id, pipelineKey);
      for (const [stageKey, stageId] of Object.entries(pipeline.stages)) {
        this.byId.set(`${pipeline.id}\u0000${stageId}`, { pipelineKey, stageKey });
      }
    }
  }

  static fromReport(report: CrmSchemaReport): CrmStageMap {
    return new CrmStageMap(report.pipelines);
  }

  pipelineId(pipelineKey: string): string {
    const pipeline = this.data[pipelineKey];
    if (!pipeline) throw new Error(`pipeline "${pipelineKey}" is not in the CRM; run setup-crm`);
    return pipeline.id;
  }

  stageId(pipelineKey: string, stageKey: string): string {
    const stageId = this.data[pipelineKey]?.stages[stageKey];
    if (!stageId) {
      throw new Error(`stage "${stageKey}" of pipeline "${pipelineKey}" is not in the CRM; run setup-crm`);
    }
    return stageId;
  }

  // False for a stage added to the schema after the brokerage last ran setup-crm.
  hasStage(pipelineKey: string, stageKey: string): boolean {
    return this.data[pipelineKey]?.stages[stageKey] !== undefined;
  }

  pipelineKey(pipelineId: string): string | undefined {
    return this.pipelineKeyById.get(pipelineId);
  }

  // Stage ids are only unique inside their pipeline in some CRMs, so both ids are needed.
  resolve(pipelineId: string | undefined, stageId: string | undefined): LogicalStage | undefined {
    if (pipelineId === undefined || stageId === undefined) return undefined;
    return this.byId.get(`${pipelineId}\u0000${stageId}`);
  }

  toJSON(): CrmStageMapData {
    return this.data;
  }
}
