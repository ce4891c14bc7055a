import { CrmStageMap } from './crm-stage-map';

describe('CrmStageMap', () => {
  const map = new CrmStageMap({
    cash_offers: { id: '1001', stages: { incoming: '2001', accept_requested: '2002' } },
    marketplace: { id: '1002', stages: { active: '2001' } },
  });

  it('resolves logical keys to CRM ids', () => {
    expect(map.pipelineId('cash_offers')).toBe('1001');
    expect(map.stageId('cash_offers', 'accept_requested')).toBe('2002');
  });

  it('resolves CRM ids back to logical keys, by pipeline and stage together', () => {
    expect(map.resolve('1001', '2001')).toEqual({ pipelineKey: 'cash_offers', stageKey: 'incoming' });
    expect(map.resolve('1002', '2001')).toEqual({ pipelineKey: 'marketplace', stageKey: 'active' });
    expect(map.resolve('default', 'closedwon')).toBeUndefined();
    expect(map.resolve(undefined, '2001')).toBeUndefined();
    expect(map.pipelineKey('1002')).toBe('marketplace');
  });

  it('names the missing key and what to do', () => {
    expect(() => map.stageId('cash_offers', 'countered')).toThrow(
      'stage "countered" of pipeline "cash_offers" is not in the CRM; run setup-crm',
    );
    expect(() => map.pipelineId('nope')).toThrow('pipeline "nope" is not in the CRM');
  });
});
