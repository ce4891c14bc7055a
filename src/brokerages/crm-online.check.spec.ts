import type { LoadedBrokerage } from '../config/config.loader';
import {
  CrmError,
  type CrmAccessReport,
  type CrmPipeline,
  type CrmPort,
  type CrmPropertyLookup,
} from '../crm';
import { CrmOnlineCheck } from './crm-online.check';
import type { CrmPortFactory } from './crm-port.factory';

const PIPELINES: CrmPipeline[] = [
  { id: 'default', label: 'Sales Pipeline', stages: [{ id: 'contractsent', label: 'Contract Sent' }] },
];

interface FakeCrm {
  access?: CrmAccessReport;
  pipelines?: () => Promise<CrmPipeline[]>;
  property?: (name: string) => Promise<CrmPropertyLookup | undefined>;
}

function checkWith(crm: FakeCrm, listings: Record<string, string>) {
  const port = {
    checkAccess: () => Promise.resolve(crm.access ?? { checked: true, missing: [] }),
    listPipelines: crm.pipelines ?? (() => Promise.resolve(PIPELINES)),
    findProperty: (_kind: string, name: string) =>
      crm.property ? crm.property(name) : Promise.resolve({ crmName: name, exists: true, custom: [] }),
  } as unknown as CrmPort;
  const factory = { create: () => port } as unknown as CrmPortFactory;
  const brokerage = {
    id: 'acme',
    file: 'acme.yaml',
    config: { crm: { kind: 'hubspot', pipelines: { listings: { pipelineId: 'default', ...listings } } } },
  } as unknown as LoadedBrokerage;
  return new CrmOnlineCheck(factory).check(brokerage);
}

const unreachable = (what: string) =>
  new CrmError('UNAVAILABLE', `${what}: HubSpot could not be reached (ECONNREFUSED)`);

describe('CrmOnlineCheck: the trigger property', () => {
  it('passes a property the deals have', async () => {
    expect(await checkWith({}, { triggerProperty: 'acme_go' })).toEqual({ problems: [], warnings: [] });
  });

  it('names a property the deals lack, with the key, as a problem', async () => {
    const found = await checkWith(
      {
        property: (name) =>
          Promise.resolve({
            crmName: name,
            exists: false,
            custom: [{ name: 'acme_flag', label: 'Acme flag' }],
          }),
      },
      { triggerProperty: 'acme_go' },
    );
    expect(found.warnings).toEqual([]);
    expect(found.problems).toEqual([
      {
        brokerageId: 'acme',
        file: 'acme.yaml',
        path: 'crm.pipelines.listings.triggerProperty',
        problem:
          "crm.pipelines.listings.triggerProperty 'acme_go' is not a deal property in this HubSpot account; its custom deal properties are: acme_flag (Acme flag)",
        unknownId: 'acme_go',
        existing: [{ id: 'acme_flag', label: 'Acme flag' }],
      },
    ]);
  });

  it('warns, and does not fail, of the property setup-crm has yet to create', async () => {
    const found = await checkWith(
      { property: (name) => Promise.resolve({ crmName: name, exists: false, custom: [] }) },
      { triggerProperty: 'cash_offer_request_trigger' },
    );
    expect(found.problems).toEqual([]);
    expect(found.warnings).toEqual([
      expect.objectContaining({
        brokerageId: 'acme',
        path: 'crm.pipelines.listings.triggerProperty',
        unknownId: 'cash_offer_request_trigger',
        warning: expect.stringContaining('setup-crm creates it') as string,
      }),
    ]);
  });

  it('says a failed read leaves the property unchecked, never that it is missing', async () => {
    const found = await checkWith(
      { property: () => Promise.reject(unreachable('list deal properties')) },
      { triggerProperty: 'acme_go' },
    );
    expect(found.problems).toHaveLength(1);
    expect(found.problems[0]).not.toHaveProperty('path');
    expect(found.problems[0]).not.toHaveProperty('unknownId');
    expect(found.problems[0].problem).toBe(
      "could not read the CRM's deal properties, so crm.pipelines.listings.triggerProperty 'acme_go' is unchecked: list deal properties: HubSpot could not be reached (ECONNREFUSED)",
    );
  });

  it('says once that the CRM cannot be reached, not once per read', async () => {
    const found = await checkWith(
      {
        pipelines: () => Promise.reject(unreachable('list deal pipelines')),
        property: () => Promise.reject(unreachable('list deal properties')),
      },
      { triggerProperty: 'acme_go' },
    );
    expect(found.problems.map((p) => p.problem)).toEqual([
      "could not read the CRM's deal pipelines or properties, so the pipeline, stage and trigger property are unchecked: list deal pipelines: HubSpot could not be reached (ECONNREFUSED)",
    ]);
  });

  it('leaves a refused read unsaid when the missing scope behind it is named', async () => {
    const found = await checkWith(
      {
        access: { checked: true, missing: ['crm.schemas.deals.read'] },
        property: () =>
          Promise.reject(new CrmError('AUTH_FAILED', 'list deal properties: forbidden (HubSpot 403)')),
      },
      { triggerProperty: 'acme_go' },
    );
    expect(found.problems.map((p) => p.problem)).toEqual([
      'the CRM token lacks scope crm.schemas.deals.read',
    ]);
  });

  it('asks nothing about a property when the trigger stage alone triggers', async () => {
    const property = jest.fn();
    expect(await checkWith({ property }, { triggerStageId: 'contractsent' })).toEqual({
      problems: [],
      warnings: [],
    });
    expect(property).not.toHaveBeenCalled();
  });
});
