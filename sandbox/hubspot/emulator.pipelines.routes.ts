import { badRequest, notFound } from './emulator.errors';
import type { Route, RouteContext, RouteResult } from './emulator.route';
import { objectType, record } from './emulator.route';
import type { PipelineDef, StageDef } from './emulator.types';

const PIPES = '/crm/v3/pipelines/([^/]+)';

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

function stageFrom(ctx: RouteContext, raw: unknown, index: number): StageDef {
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
  const now = new Date(ctx.now).toISOString();
  return {
    id: ctx.state.schema.newStageId(),
    label: input.label,
    displayOrder: typeof input.displayOrder === 'number' ? input.displayOrder : index,
    metadata: Object.fromEntries(Object.entries(metadata).map(([k, v]) => [k, String(v as string)])),
    createdAt: now,
    updatedAt: now,
  };
}

function list(ctx: RouteContext): RouteResult {
  dealsOnly(ctx.params[0]);
  return { status: 200, body: { results: [...ctx.state.schema.pipelines.values()].map(wirePipeline) } };
}

function create(ctx: RouteContext): RouteResult {
  dealsOnly(ctx.params[0]);
  const body = record(ctx.body, 'request body');
  if (typeof body.label !== 'string') throw badRequest('label is required');
  if (!Array.isArray(body.stages) || body.stages.length === 0)
    throw badRequest('a pipeline needs at least one stage');
  const labels = new Set([...ctx.state.schema.pipelines.values()].map((p) => p.label));
  if (labels.has(body.label)) throw badRequest(`A pipeline with label ${body.label} already exists`);
  const now = new Date(ctx.now).toISOString();
  const pipeline: PipelineDef = {
    id: ctx.state.schema.newPipelineId(),
    label: body.label,
    displayOrder: typeof body.displayOrder === 'number' ? body.displayOrder : ctx.state.schema.pipelines.size,
    stages: body.stages.map((s, i) => stageFrom(ctx, s, i)),
    createdAt: now,
    updatedAt: now,
  };
  ctx.state.schema.pipelines.set(pipeline.id, pipeline);
  return { status: 201, body: wirePipeline(pipeline) };
}

function get(ctx: RouteContext): RouteResult {
  dealsOnly(ctx.params[0]);
  return { status: 200, body: wirePipeline(ctx.state.schema.pipeline(ctx.params[1])) };
}

function update(ctx: RouteContext): RouteResult {
  dealsOnly(ctx.params[0]);
  const pipeline = ctx.state.schema.pipeline(ctx.params[1]);
  const body = record(ctx.body, 'request body');
  if (typeof body.label === 'string') pipeline.label = body.label;
  if (typeof body.displayOrder === 'number') pipeline.displayOrder = body.displayOrder;
  pipeline.updatedAt = new Date(ctx.now).toISOString();
  return { status: 200, body: wirePipeline(pipeline) };
}

function archive(ctx: RouteContext): RouteResult {
  dealsOnly(ctx.params[0]);
  ctx.state.schema.pipelines.delete(ctx.params[1]);
  return { status: 204 };
}

function listStages(ctx: RouteContext): RouteResult {
  dealsOnly(ctx.params[0]);
  return { status: 200, body: { results: ctx.state.schema.pipeline(ctx.params[1]).stages.map(wireStage) } };
}

function createStage(ctx: RouteContext): RouteResult {
  dealsOnly(ctx.params[0]);
  const pipeline = ctx.state.schema.pipeline(ctx.params[1]);
  const stage = stageFrom(ctx, ctx.body, pipeline.stages.length);
  pipeline.stages.push(stage);
  return { status: 201, body: wireStage(stage) };
}

function findStage(ctx: RouteContext): StageDef {
  dealsOnly(ctx.params[0]);
  const stage = ctx.state.schema.stageOf(ctx.params[1], ctx.params[2]);
  if (!stage) throw notFound(`Unable to find stage ${ctx.params[2]} in pipeline ${ctx.params[1]}`);
  return stage;
}

function updateStage(ctx: RouteContext): RouteResult {
  const stage = findStage(ctx);
  const body = record(ctx.body, 'request body');
  if (typeof body.label === 'string') stage.label = body.label;
  if (body.metadata !== undefined) {
    const meta = record(body.metadata, 'metadata');
    stage.metadata = {
      ...stage.metadata,
      ...Object.fromEntries(Object.entries(meta).map(([k, v]) => [k, String(v as string)])),
    };
  }
  return { status: 200, body: wireStage(stage) };
}

// HubSpot keeps an archived stage (records already in it stay there); it is listed with
// archived: true and no record can move into it.
function archiveStage(ctx: RouteContext): RouteResult {
  const stage = findStage(ctx);
  if (!stage.archived) {
    stage.archived = true;
    stage.archivedAt = new Date(ctx.now).toISOString();
  }
  return { status: 204 };
}

export const PIPELINE_ROUTES: Route[] = [
  { method: 'GET', pattern: new RegExp(`^${PIPES}$`), handle: list },
  { method: 'POST', pattern: new RegExp(`^${PIPES}$`), handle: create },
  { method: 'GET', pattern: new RegExp(`^${PIPES}/([^/]+)$`), handle: get },
  { method: 'PATCH', pattern: new RegExp(`^${PIPES}/([^/]+)$`), handle: update },
  { method: 'DELETE', pattern: new RegExp(`^${PIPES}/([^/]+)$`), handle: archive },
  { method: 'GET', pattern: new RegExp(`^${PIPES}/([^/]+)/stages$`), handle: listStages },
  { method: 'POST', pattern: new RegExp(`^${PIPES}/([^/]+)/stages$`), handle: createStage },
  {
    method: 'GET',
    pattern: new RegExp(`^${PIPES}/([^/]+)/stages/([^/]+)$`),
    handle: (ctx) => ({ status: 200, body: wireStage(findStage(ctx)) }),
  },
  { method: 'PATCH', pattern: new RegExp(`^${PIPES}/([^/]+)/stages/([^/]+)$`), handle: updateStage },
  { method: 'DELETE', pattern: new RegExp(`^${PIPES}/([^/]+)/stages/([^/]+)$`), handle: archiveStage },
];
