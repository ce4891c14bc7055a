import { validationError } from './emulator.errors';
import type { SchemaStore } from './emulator.schema-store';
import type { ObjectType, StoredObject } from './emulator.types';

// What HubSpot requires of a deal's pipeline and stage on every write.

// A deal created without a pipeline is in the portal's default one.
export function withDealDefaults(values: Record<string, string>): Record<string, string> {
  if (values.pipeline) return values;
  return { pipeline: 'default', ...values };
}

// A deal's stage must belong to its pipeline, as HubSpot enforces; a stage archived since may stay
// on a deal but no deal may move into it.
export function checkDeal(
  schema: SchemaStore,
  type: ObjectType,
  values: Record<string, string>,
  existing: StoredObject | undefined,
): void {
  if (type !== 'deals' || (values.pipeline === undefined && values.dealstage === undefined)) return;
  const pipelineId = values.pipeline || existing?.properties.pipeline || 'default';
  if (!schema.pipelines.has(pipelineId)) {
    throw validationError([
      { name: 'pipeline', error: 'INVALID_OPTION', message: `${pipelineId} is not a valid pipeline` },
    ]);
  }
  const stageId = values.dealstage ?? existing?.properties.dealstage;
  const stage = stageId ? schema.stageOf(pipelineId, stageId) : undefined;
  if (stageId && (!stage || (stage.archived && values.dealstage !== undefined))) {
    throw validationError([
      {
        name: 'dealstage',
        error: 'INVALID_OPTION',
        message: `${stageId} is not a valid stage of pipeline ${pipelineId}`,
      },
    ]);
  }
}
