import type { CrmPipeline } from '../crm';
import type { ListingsPipelineConfig } from '../config/brokerage-config.schema';

const LISTINGS = 'crm.pipelines.listings';

const ACCOUNT: Record<string, string> = {
  hubspot: 'this HubSpot account',
  followupboss: 'this Follow Up Boss account',
};

// "this HubSpot account", for messages that say where an id was looked for.
export function accountOf(crmKind: string): string {
  return ACCOUNT[crmKind] ?? `this ${crmKind} account`;
}

// One CRM id a brokerage file names that the CRM does not have, with the ids it does have.
export interface CrmIdProblem {
  // The key of the brokerage file, e.g. crm.pipelines.listings.pipelineId.
  path: string;
  id: string;
  message: string;
  existing: { id: string; label: string }[];
}

// The listing pipeline and trigger stage a brokerage file names, checked against the deal pipelines
// the CRM lists. A wrong id passes every offline check, and the flows then simply find no deals in
// it: said here, with the ids that would do, so the operator can pick one.
export function listingPipelineProblems(
  listings: ListingsPipelineConfig,
  pipelines: CrmPipeline[],
  crmKind: string,
): CrmIdProblem[] {
  const account = accountOf(crmKind);
  const problems: CrmIdProblem[] = [];
  const pipeline = pipelines.find((p) => p.id === listings.pipelineId);
  const stageId = listings.triggerStageId;
  // Where the trigger stage is when it is not in the configured pipeline: often a stage of the wrong
  // pipeline (setup-crm's Cash Offers stages look like any other).
  const elsewhere =
    stageId === undefined
      ? undefined
      : pipelines
          .filter((p) => p !== pipeline)
          .map((p) => ({ pipeline: p, stage: p.stages.find((s) => s.id === stageId) }))
          .find((found) => found.stage !== undefined);
  const hint = elsewhere?.stage
    ? ` ('${stageId}' is stage ${elsewhere.stage.label} of pipeline ${named(elsewhere.pipeline)})`
    : '';
  if (!pipeline) {
    const existing = pipelines.map((p) => ({ id: p.id, label: p.label }));
    problems.push({
      path: `${LISTINGS}.pipelineId`,
      id: listings.pipelineId,
      message: `'${listings.pipelineId}' is not a deal pipeline in ${account}; it has: ${list(existing)}${hint}`,
      existing,
    });
  }
  if (stageId === undefined) return problems;
  if (pipeline && !pipeline.stages.some((s) => s.id === stageId)) {
    const existing = pipeline.stages.map((s) => ({ id: s.id, label: s.label }));
    problems.push({
      path: `${LISTINGS}.triggerStageId`,
      id: stageId,
      message: `'${stageId}' is not a stage of pipeline ${named(pipeline)}; it has: ${list(existing)}${hint}`,
      existing,
    });
  } else if (!pipeline && !elsewhere) {
    const existing = pipelines.flatMap((p) =>
      p.stages.map((s) => ({ id: s.id, label: `${s.label}, ${p.label}` })),
    );
    problems.push({
      path: `${LISTINGS}.triggerStageId`,
      id: stageId,
      message: `'${stageId}' is not a deal stage in ${account}; it has: ${list(existing)}`,
      existing,
    });
  }
  return problems;
}

function named(pipeline: CrmPipeline): string {
  return `${pipeline.id} (${pipeline.label})`;
}

function list(items: { id: string; label: string }[]): string {
  return items.length === 0 ? 'none' : items.map((i) => `${i.id} (${i.label})`).join(', ');
}
