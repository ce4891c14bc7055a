import { badRequest, notFound } from './emulator.errors';
import { FIELD_TYPES } from './emulator.properties';
import type { Route, RouteContext, RouteResult } from './emulator.route';
import { objectType, record } from './emulator.route';
import type { GroupDef, PropertyDef, PropertyOption, PropertyType } from './emulator.types';

const PROPS = '/crm/v3/properties/([^/]+)';
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

function createProperty(ctx: RouteContext): RouteResult {
  const type = objectType(ctx.params[0]);
  const body = record(ctx.body, 'request body');
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
  const now = new Date(ctx.now).toISOString();
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
  ctx.state.schema.addProperty(type, def);
  return { status: 201, body: wireProperty(def) };
}

function getProperty(ctx: RouteContext): RouteResult {
  const def = ctx.state.schema.property(objectType(ctx.params[0]), ctx.params[1]);
  if (!def) throw notFound(`Unable to find property ${ctx.params[1]}`);
  return { status: 200, body: wireProperty(def) };
}

function updateProperty(ctx: RouteContext): RouteResult {
  const def = ctx.state.schema.property(objectType(ctx.params[0]), ctx.params[1]);
  if (!def) throw notFound(`Unable to find property ${ctx.params[1]}`);
  const body = record(ctx.body, 'request body');
  if (typeof body.label === 'string') def.label = body.label;
  if (typeof body.description === 'string') def.description = body.description;
  if (typeof body.groupName === 'string') def.groupName = body.groupName;
  if (typeof body.hidden === 'boolean') def.hidden = body.hidden;
  if (body.options !== undefined) def.options = options(body.options);
  def.updatedAt = new Date(ctx.now).toISOString();
  return { status: 200, body: wireProperty(def) };
}

function archiveProperty(ctx: RouteContext): RouteResult {
  ctx.state.schema.propertiesOf(objectType(ctx.params[0])).delete(ctx.params[1]);
  return { status: 204 };
}

function listProperties(ctx: RouteContext): RouteResult {
  const props = [...ctx.state.schema.propertiesOf(objectType(ctx.params[0])).values()];
  return { status: 200, body: { results: props.map(wireProperty) } };
}

function createGroup(ctx: RouteContext): RouteResult {
  const body = record(ctx.body, 'request body');
  if (typeof body.name !== 'string' || typeof body.label !== 'string')
    throw badRequest('name and label are required');
  const group: GroupDef = {
    name: body.name,
    label: body.label,
    displayOrder: typeof body.displayOrder === 'number' ? body.displayOrder : -1,
    archived: false,
  };
  ctx.state.schema.addGroup(objectType(ctx.params[0]), group);
  return { status: 201, body: group };
}

function getGroup(ctx: RouteContext): RouteResult {
  const group = ctx.state.schema.groups.get(objectType(ctx.params[0]))!.get(ctx.params[1]);
  if (!group) throw notFound(`Unable to find property group ${ctx.params[1]}`);
  return { status: 200, body: group };
}

function updateGroup(ctx: RouteContext): RouteResult {
  const group = ctx.state.schema.groups.get(objectType(ctx.params[0]))!.get(ctx.params[1]);
  if (!group) throw notFound(`Unable to find property group ${ctx.params[1]}`);
  const body = record(ctx.body, 'request body');
  if (typeof body.label === 'string') group.label = body.label;
  if (typeof body.displayOrder === 'number') group.displayOrder = body.displayOrder;
  return { status: 200, body: group };
}

function archiveGroup(ctx: RouteContext): RouteResult {
  ctx.state.schema.groups.get(objectType(ctx.params[0]))!.delete(ctx.params[1]);
  return { status: 204 };
}

function listGroups(ctx: RouteContext): RouteResult {
  return {
    status: 200,
    body: { results: [...ctx.state.schema.groups.get(objectType(ctx.params[0]))!.values()] },
  };
}

export const PROPERTY_ROUTES: Route[] = [
  { method: 'GET', pattern: new RegExp(`^${PROPS}/groups$`), handle: listGroups },
  { method: 'POST', pattern: new RegExp(`^${PROPS}/groups$`), handle: createGroup },
  { method: 'GET', pattern: new RegExp(`^${PROPS}/groups/([^/]+)$`), handle: getGroup },
  { method: 'PATCH', pattern: new RegExp(`^${PROPS}/groups/([^/]+)$`), handle: updateGroup },
  { method: 'DELETE', pattern: new RegExp(`^${PROPS}/groups/([^/]+)$`), handle: archiveGroup },
  { method: 'GET', pattern: new RegExp(`^${PROPS}$`), handle: listProperties },
  { method: 'POST', pattern: new RegExp(`^${PROPS}$`), handle: createProperty },
  { method: 'GET', pattern: new RegExp(`^${PROPS}/([^/]+)$`), handle: getProperty },
  { method: 'PATCH', pattern: new RegExp(`^${PROPS}/([^/]+)$`), handle: updateProperty },
  { method: 'DELETE', pattern: new RegExp(`^${PROPS}/([^/]+)$`), handle: archiveProperty },
];
