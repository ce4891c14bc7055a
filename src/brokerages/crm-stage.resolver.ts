import type { CrmPipeline, CrmSchemaSpec, CrmStageMapData } from '../crm';

export interface ResolvedStages {
  data: CrmStageMapData;
  // Pipelines or stages of the schema the CRM does not have yet (setup-crm not run, or renamed).
  missing: string[];
}

const same = (a: string, b: string): boolean => a.trim().toLowerCase() === b.trim().toLowerCase();

// The CRM assigns pipeline and stage ids; setup-crm creates them under the schema's labels, so they
// are found again by label.
export function resolveStages(schema: CrmSchemaSpec, pipelines: CrmPipeline[]): ResolvedStages {
  const data: CrmStageMapData = {};
  const missing: string[] = [];
  for (const spec of schema.pipelines) {
    const pipeline = pipelines.find((p) => same(p.label, spec.label));
    if (!pipeline) {
      missing.push(`pipeline "${spec.label}"`);
      continue;
    }
    const stages: Record<string, string> = {};
    for (const stage of spec.stages) {
      const found = pipeline.stages.find((s) => same(s.label, stage.label));
      if (found) stages[stage.key] = found.id;
      else missing.push(`stage "${stage.label}" of pipeline "${spec.label}"`);
    }
    data[spec.key] = { id: pipeline.id, stages };
  }
  return { data, missing };
}
