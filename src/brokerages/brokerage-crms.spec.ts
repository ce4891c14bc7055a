import type { ConfigService } from '../config/config.service';
import type { LoadedBrokerage } from '../config/config.loader';
import { CASH_OFFER_CRM_SCHEMA, type CrmPipeline, type CrmPort } from '../crm';
import { BrokerageCrms } from './brokerage-crms';
import type { CrmPortFactory } from './crm-port.factory';

const fullPipelines: CrmPipeline[] = CASH_OFFER_CRM_SCHEMA.pipelines.map((p, i) => ({
  id: `p${i}`,
  label: p.label.toUpperCase(),
  stages: p.stages.map((s, j) => ({ id: `p${i}s${j}`, label: s.label })),
}));

function setup(pipelines: CrmPipeline[][]) {
  let fingerprint = 'v1';
  const brokerage = (): LoadedBrokerage =>
    ({
      id: 'acme',
      fingerprint,
      config: {
        crm: {
          kind: 'hubspot',
          pipelines: { listings: { pipelineId: 'default' } },
          mapping: { overrides: { ListPrice: 'acme_price' } },
        },
      },
    }) as unknown as LoadedBrokerage;
  const config = {
    get: (id: string) => (id === 'acme' ? brokerage() : undefined),
    onChange: () => undefined,
  };
  const ports: { listPipelines: jest.Mock }[] = [];
  const crmFactory = {
    create: () => {
      let calls = 0;
      const port = { listPipelines: jest.fn(async () => pipelines[Math.min(calls++, pipelines.length - 1)]) };
      ports.push(port);
      return port as unknown as CrmPort;
    },
  };
  const clients = new BrokerageCrms(
    config as unknown as ConfigService,
    crmFactory as unknown as CrmPortFactory,
  );
  return { clients, ports, setFingerprint: (value: string) => (fingerprint = value) };
}

describe('BrokerageCrms', () => {
  it('resolves stage ids by label once and keeps one adapter per config fingerprint', async () => {
    const { clients, ports, setFingerprint } = setup([fullPipelines]);
    const first = await clients.get('acme');
    const second = await clients.get('acme');
    expect(second.port).toBe(first.port);
    expect(ports).toHaveLength(1);
    expect(ports[0].listPipelines).toHaveBeenCalledTimes(1);
    expect(first.stages.stageId('cash_offers', 'accept_requested')).toBe('p0s1');
    expect(first.mapping.ListPrice).toEqual({ source: 'deal', properties: ['acme_price'] });
    expect(first.listings.pipelineId).toBe('default');

    setFingerprint('v2');
    expect((await clients.get('acme')).port).not.toBe(first.port);
    expect(ports).toHaveLength(2);
  });

  it('looks the stages up again while setup-crm has not created them, with the same adapter', async () => {
    const { clients, ports } = setup([[], fullPipelines]);
    const before = await clients.get('acme');
    expect(() => before.stages.pipelineId('cash_offers')).toThrow('run setup-crm');
    const after = await clients.get('acme');
    expect(after.stages.pipelineId('cash_offers')).toBe('p0');
    expect(after.port).toBe(before.port);
    expect(ports[0].listPipelines).toHaveBeenCalledTimes(2);
    await clients.get('acme');
    expect(ports[0].listPipelines).toHaveBeenCalledTimes(2);
  });

  it('names an unknown brokerage', async () => {
    const { clients } = setup([fullPipelines]);
    await expect(clients.get('nope')).rejects.toThrow('no brokerage "nope" is configured');
  });
});
