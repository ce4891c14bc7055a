import { Injectable } from '@nestjs/common';
import { badRequest, notFound } from './emulator.errors';
import { objectType, record } from './emulator.inputs';
import type { SchemaStore } from './emulator.schema-store';
import { EmulatorState } from './emulator.state';
import type { PipelineDef, StageDef } from './emulator.types';

// Only deal pipelines are emulated; contacts have none in HubSpot.
function dealsOnly(segment: string): void {
  if (objectType(segment) !== 'deals')
    throw badRequest(`Pipelines are not supported for object type ${segment}`);
}

function wirePipeline(p: PipelineDef): Record<string, unknown> {
  return { ...p, archived: false };
}

// Every stage carries `archived` (and `archivedAt` once archived), as the Pipelines spec requires.
function wireStage(s: StageDef): Record<string, unknown> {
  return { ...s, archived: s.archived === true, writePermissions: 'CRM_PERMISSIONS_ENFORCEMENT' };
}

function stageFrom(schema: SchemaStore, raw: unknown, index: number): StageDef {
  const input = record(raw, `stages[${index}]`);
  if (typeof input.label !== 'string') throw badRequest(`stages[${index}].label is required`);
  const metadata = input.metadata === undefined ? {} : record(input.metadata, `stages[${index}].metadata`);
  const probability = metadata.probability;
  if (
    probability === undefined ||
    Number.isNaN(Number(probability)) ||
    Number(probability) < 0 ||
    Number(probability) > 1
  ) {
    throw badRequest(
      `stages[${index}].metadata.probability is required for deal stages: a number from 0.0 to 1.0`,
    );
  }
  const now = new Date().toISOString();
  return {
    id: schema.newStageId(),
    label: input.label,
    displayOrder: typeof input.displayOrder === 'number' ? input.displayOrder : index,
    metadata: Object.fromEntries(Object.entries(metadata).map(([k, v]) => [k, String(v as string)])),
    createdAt: now,
    updatedAt: now,
  };
}

// Deal pipelines and their stages under /crm/v3/pipelines/{type}.
@Injectable()
export class PipelinesService {
  constructor(private readonly state: EmulatorState) {}

  list(typeSegment: string): Record<string, unknown> {
    dealsOnly(typeSegment);
    return { results: [...this.state.schema.pipelines.values()].map(wirePipeline) };
  }

  create(typeSegment: string, rawBody: unknown): Record<string, unknown> {
    dealsOnly(typeSegment);
    const body = record(rawBody, 'request body');
    if (typeof body.label !== 'string') throw badRequest('label is required');
    if (!Array.isArray(body.stages) || body.stages.length === 0)
      throw badRequest('a pipeline needs at least one stage');
    const labels = new Set([...this.state.schema.pipelines.values()].map((p) => p.label));
    if (labels.has(body.label)) throw badRequest(`A pipeline with label ${body.label} already exists`);
    const now = new Date().toISOString();
    const pipeline: PipelineDef = {
      id: this.state.schema.newPipelineId(),
      label: body.label,
      displayOrder:
        typeof body.displayOrder === 'number' ? body.displayOrder : this.state.schema.pipelines.size,
      stages: body.stages.map((s, i) => stageFrom(this.state.schema, s, i)),
      createdAt: now,
      updatedAt: now,
    };
    this.state.schema.pipelines.set(pipeline.id, pipeline);
    return wirePipeline(pipeline);
  }

  get(typeSegment: string, pipelineId: string): Record<string, unknown> {
    dealsOnly(typeSegment);
    return wirePipeline(this.state.schema.pipeline(pipelineId));
  }

  update(typeSegment: string, pipelineId: string, rawBody: unknown): Record<string, unknown> {
    dealsOnly(typeSegment);
    const pipeline = this.state.schema.pipeline(pipelineId);
    const body = record(rawBody, 'request body');
    if (typeof body.label === 'string') pipeline.label = body.label;
    if (typeof body.displayOrder === 'number') pipeline.displayOrder = body.displayOrder;
    pipeline.updatedAt = new Date().toISOString();
    return wirePipeline(pipeline);
  }

  archive(typeSegment: string, pipelineId: string): void {
    dealsOnly(typeSegment);
    this.state.schema.pipelines.delete(pipelineId);
  }

  listStages(typeSegment: string, pipelineId: string): Record<string, unknown> {
    dealsOnly(typeSegment);
    return { results: this.state.schema.pipeline(pipelineId).stages.map(wireStage) };
  }

  createStage(typeSegment: string, pipelineId: string, body: unknown): Record<string, unknown> {
    dealsOnly(typeSegment);
    const pipeline = this.state.schema.pipeline(pipelineId);
    const stage = stageFrom(this.state.schema, body, pipeline.stages.length);
    pipeline.stages.push(stage);
    return wireStage(stage);
  }

  getStage(typeSegment: string, pipelineId: string, stageId: string): Record<string, unknown> {
    return wireStage(this.findStage(typeSegment, pipelineId, stageId));
  }

  private findStage(typeSegment: string, pipelineId: string, stageId: string): StageDef {
    dealsOnly(typeSegment);
    const stage = this.state.schema.stageOf(pipelineId, stageId);
    if (!stage) throw notFound(`Unable to find stage ${stageId} in pipeline ${pipelineId}`);
    return stage;
  }

  updateStage(
    typeSegment: string,
    pipelineId: string,
    stageId: string,
    rawBody: unknown,
  ): Record<string, unknown> {
    const stage = this.findStage(typeSegment, pipelineId, stageId);
    const body = record(rawBody, 'request body');
    if (typeof body.label === 'string') stage.label = body.label;
    if (body.metadata !== undefined) {
      const meta = record(body.metadata, 'metadata');
      stage.metadata = {
        ...stage.metadata,
        ...Object.fromEntries(Object.entries(meta).map(([k, v]) => [k, String(v as string)])),
      };
    }
    return wireStage(stage);
  }

  // HubSpot keeps an archived stage (records already in it stay there); it is listed with
  // archived: true and no record can move into it.
  archiveStage(typeSegment: string, pipelineId: string, stageId: string): void {
    const stage = this.findStage(typeSegment, pipelineId, stageId);
    if (!stage.archived) {
      stage.archived = true;
      stage.archivedAt = new Date().toISOString();
    }
  }
}
