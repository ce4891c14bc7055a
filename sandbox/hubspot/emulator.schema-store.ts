import { badRequest, conflict, notFound } from './emulator.errors';
import { DEFAULT_GROUP, defaultProperties } from './emulator.properties';
import { OBJECT_TYPES } from './emulator.types';
import type { GroupDef, ObjectType, PipelineDef, PropertyDef, StageDef } from './emulator.types';

// Properties, property groups and deal pipelines of one emulated portal.
export class SchemaStore {
  readonly properties = new Map<ObjectType, Map<string, PropertyDef>>();
  readonly groups = new Map<ObjectType, Map<string, GroupDef>>();
  readonly pipelines = new Map<string, PipelineDef>();
  private nextPipelineId = 1000;

  constructor() {
    this.reset();
  }

  reset(): void {
    const now = new Date().toISOString();
    for (const type of OBJECT_TYPES) {
      this.properties.set(type, new Map(defaultProperties(type, now).map((p) => [p.name, p])));
      const group: GroupDef = {
        name: DEFAULT_GROUP[type],
        label: 'Information',
        displayOrder: 0,
        archived: false,
      };
      this.groups.set(type, new Map([[group.name, group]]));
    }
    this.pipelines.clear();
    this.nextPipelineId = 1000;
    this.pipelines.set('default', defaultDealPipeline(now));
  }

  propertiesOf(type: ObjectType): Map<string, PropertyDef> {
    return this.properties.get(type)!;
  }

  property(type: ObjectType, name: string): PropertyDef | undefined {
    return this.propertiesOf(type).get(name);
  }

  addProperty(type: ObjectType, def: PropertyDef): void {
    const props = this.propertiesOf(type);
    if (props.has(def.name)) throw conflict(`Property named '${def.name}' already exists.`);
    if (!this.groups.get(type)!.has(def.groupName)) {
      throw badRequest(`Property group '${def.groupName}' does not exist for object type ${type}.`);
    }
    props.set(def.name, def);
  }

  addGroup(type: ObjectType, group: GroupDef): void {
    const groups = this.groups.get(type)!;
    if (groups.has(group.name)) throw conflict(`A property group named '${group.name}' already exists.`);
    groups.set(group.name, group);
  }

  pipeline(id: string): PipelineDef {
    const pipeline = this.pipelines.get(id);
    if (!pipeline) throw notFound(`Unable to find pipeline ${id}`);
    return pipeline;
  }

  newPipelineId(): string {
    return String(this.nextPipelineId++);
  }

  newStageId(): string {
    return String(this.nextPipelineId++);
  }

  stageOf(pipelineId: string, stageId: string): StageDef | undefined {
    return this.pipelines.get(pipelineId)?.stages.find((s) => s.id === stageId);
  }
}

// A fresh portal's "Sales Pipeline".
function defaultDealPipeline(now: string): PipelineDef {
  const stages: [string, string, string][] = [
    ['appointmentscheduled', 'Appointment Scheduled', '0.2'],
    ['qualifiedtobuy', 'Qualified To Buy', '0.4'],
    ['presentationscheduled', 'Presentation Scheduled', '0.6'],
    ['decisionmakerboughtin', 'Decision Maker Bought-In', '0.8'],
    ['contractsent', 'Contract Sent', '0.9'],
    ['closedwon', 'Closed Won', '1.0'],
    ['closedlost', 'Closed Lost', '0.0'],
  ];
  return {
    id: 'default',
    label: 'Sales Pipeline',
    displayOrder: 0,
    createdAt: now,
    updatedAt: now,
    stages: stages.map(([id, label, probability], displayOrder) => ({
      id,
      label,
      displayOrder,
      metadata: { isClosed: String(probability === '1.0' || probability === '0.0'), probability },
      createdAt: now,
      updatedAt: now,
    })),
  };
}
