import { Injectable } from '@nestjs/common';
import { HubSpotHttpError, badRequest, notFound } from './emulator.errors';
import { batchInputs, objectType, record } from './emulator.inputs';
import { FIELD_TYPES } from './emulator.properties';
import { HubSpotReply } from './emulator.reply';
import { EmulatorState } from './emulator.state';
import type { GroupDef, PropertyDef, PropertyOption, PropertyType } from './emulator.types';
import { batchEnvelope } from './emulator.wire';

const TYPES: PropertyType[] = ['string', 'number', 'date', 'datetime', 'enumeration', 'bool'];

function wireProperty(def: PropertyDef): Record<string, unknown> {
  const { readOnly: _readOnly, ...rest } = def;
  return {
    ...rest,
    calculated: false,
    externalOptions: false,
    modificationMetadata: {
      archivable: !def.hubspotDefined,
      readOnlyDefinition: def.hubspotDefined,
      readOnlyValue: def.readOnly,
    },
  };
}

function options(raw: unknown): PropertyOption[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) throw badRequest('options must be an array');
  return raw.map((o, i) => {
    const opt = record(o, `options[${i}]`);
    if (typeof opt.label !== 'string' || typeof opt.value !== 'string') {
      throw badRequest(`options[${i}] needs a label and a value`);
    }
    return {
      label: opt.label,
      value: opt.value,
      hidden: opt.hidden === true,
      displayOrder: typeof opt.displayOrder === 'number' ? opt.displayOrder : i,
      ...(typeof opt.description === 'string' ? { description: opt.description } : {}),
    };
  });
}

// Property definitions under /crm/v3/properties/{type}.
@Injectable()
export class PropertiesService {
  constructor(private readonly state: EmulatorState) {}

  create(typeSegment: string, rawBody: unknown): Record<string, unknown> {
    const type = objectType(typeSegment);
    const body = record(rawBody, 'request body');
    const missing = ['name', 'label', 'type', 'fieldType', 'groupName'].filter(
      (k) => typeof body[k] !== 'string',
    );
    if (missing.length > 0) throw badRequest(`Missing required fields: ${missing.join(', ')}`);
    const propType = body.type as PropertyType;
    if (!TYPES.includes(propType))
      throw badRequest(`type must be one of ${TYPES.join(', ')}; it was ${String(body.type)}`);
    if (!FIELD_TYPES[propType].includes(String(body.fieldType))) {
      throw badRequest(`fieldType ${String(body.fieldType)} cannot be used with type ${propType}`);
    }
    const opts = options(body.options);
    if ((propType === 'enumeration' || propType === 'bool') && opts.length === 0) {
      throw badRequest(`a property of type ${propType} needs options`);
    }
    const now = new Date().toISOString();
    const def: PropertyDef = {
      name: String(body.name),
      label: String(body.label),
      type: propType,
      fieldType: String(body.fieldType),
      groupName: String(body.groupName),
      description: typeof body.description === 'string' ? body.description : '',
      options: opts,
      hasUniqueValue: body.hasUniqueValue === true,
      hubspotDefined: false,
      readOnly: false,
      displayOrder: typeof body.displayOrder === 'number' ? body.displayOrder : -1,
      hidden: body.hidden === true,
      formField: body.formField === true,
      createdAt: now,
      updatedAt: now,
    };
    if (!/^[a-z][a-z0-9_]*$/.test(def.name))
      throw badRequest(`Property name ${def.name} is not valid: use lowercase letters, digits and _`);
    this.state.schema.addProperty(type, def);
    return wireProperty(def);
  }

  // POST /crm/v3/properties/{type}/batch/create: each input by the rules of a single create
  // ("using the same rules as when creating an individual property"); HubSpot's published answers
  // are 201 with every property, or 207 with the ones made and an error per refused input
  // (BatchResponsePropertyWithErrors). developers.hubspot.com/docs/api-reference/legacy/crm/properties/batch/create-properties
  createBatch(typeSegment: string, rawBody: unknown): HubSpotReply {
    const started = Date.now();
    const results: unknown[] = [];
    const errors: unknown[] = [];
    for (const input of batchInputs(rawBody)) {
      try {
        results.push(this.create(typeSegment, input));
      } catch (error) {
        if (!(error instanceof HubSpotHttpError)) throw error;
        const { correlationId: _id, ...body } = error.body();
        errors.push({ ...body, context: { propertyName: [String(input.name)] }, links: {} });
      }
    }
    return new HubSpotReply(errors.length > 0 ? 207 : 201, batchEnvelope(results, errors, started));
  }

  get(typeSegment: string, name: string): Record<string, unknown> {
    const def = this.state.schema.property(objectType(typeSegment), name);
    if (!def) throw notFound(`Unable to find property ${name}`);
    return wireProperty(def);
  }

  update(typeSegment: string, name: string, rawBody: unknown): Record<string, unknown> {
    const def = this.state.schema.property(objectType(typeSegment), name);
    if (!def) throw notFound(`Unable to find property ${name}`);
    const body = record(rawBody, 'request body');
    if (typeof body.label === 'string') def.label = body.label;
    if (typeof body.description === 'string') def.description = body.description;
    if (typeof body.groupName === 'string') def.groupName = body.groupName;
    if (typeof body.hidden === 'boolean') def.hidden = body.hidden;
    if (body.options !== undefined) def.options = options(body.options);
    def.updatedAt = new Date().toISOString();
    return wireProperty(def);
  }

  archive(typeSegment: string, name: string): void {
    this.state.schema.propertiesOf(objectType(typeSegment)).delete(name);
  }

  list(typeSegment: string): Record<string, unknown> {
    const props = [...this.state.schema.propertiesOf(objectType(typeSegment)).values()];
    return { results: props.map(wireProperty) };
  }
}

// Property groups under /crm/v3/properties/{type}/groups.
@Injectable()
export class PropertyGroupsService {
  constructor(private readonly state: EmulatorState) {}

  create(typeSegment: string, rawBody: unknown): GroupDef {
    const body = record(rawBody, 'request body');
    if (typeof body.name !== 'string' || typeof body.label !== 'string')
      throw badRequest('name and label are required');
    const group: GroupDef = {
      name: body.name,
      label: body.label,
      displayOrder: typeof body.displayOrder === 'number' ? body.displayOrder : -1,
      archived: false,
    };
    this.state.schema.addGroup(objectType(typeSegment), group);
    return group;
  }

  get(typeSegment: string, name: string): GroupDef {
    const group = this.state.schema.groups.get(objectType(typeSegment))!.get(name);
    if (!group) throw notFound(`Unable to find property group ${name}`);
    return group;
  }

  update(typeSegment: string, name: string, rawBody: unknown): GroupDef {
    const group = this.state.schema.groups.get(objectType(typeSegment))!.get(name);
    if (!group) throw notFound(`Unable to find property group ${name}`);
    const body = record(rawBody, 'request body');
    if (typeof body.label === 'string') group.label = body.label;
    if (typeof body.displayOrder === 'number') group.displayOrder = body.displayOrder;
    return group;
  }

  archive(typeSegment: string, name: string): void {
    this.state.schema.groups.get(objectType(typeSegment))!.delete(name);
  }

  list(typeSegment: string): Record<string, unknown> {
    return { results: [...this.state.schema.groups.get(objectType(typeSegment))!.values()] };
  }
}
