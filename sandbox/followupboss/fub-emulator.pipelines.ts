import { badRequest } from './fub-emulator.types';
import { object } from './fub-emulator.values';

export interface PipelineInput {
  name?: string;
  stages?: { id?: number; name: string }[];
}

// A pipeline body; a stage without a name is refused in FUB's words.
export function pipelineBody(body: Record<string, unknown>): PipelineInput {
  const stages = body.stages;
  if (stages !== undefined && !Array.isArray(stages)) throw badRequest('stages must be a list');
  const parsed = (stages as unknown[] | undefined)?.map((s) => {
    const stage = object(s);
    if (typeof stage.name !== 'string' || stage.name.trim() === '')
      throw badRequest('name is a required field for each stage object');
    return { ...(stage.id !== undefined ? { id: Number(stage.id) } : {}), name: stage.name };
  });
  return {
    ...(typeof body.name === 'string' ? { name: body.name } : {}),
    ...(parsed ? { stages: parsed } : {}),
  };
}
