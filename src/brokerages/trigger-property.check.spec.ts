import type { CrmPropertyLookup } from '../crm';
import { triggerPropertyFinding } from './trigger-property.check';

const SETUP = new Set(['cash_offer_request_trigger']);
const missing = (crmName: string, custom: CrmPropertyLookup['custom'] = []): CrmPropertyLookup => ({
  crmName,
  exists: false,
  custom,
});

describe('triggerPropertyFinding', () => {
  it('finds nothing when the deals have the property, or when the stage alone triggers', () => {
    const lookup = { crmName: 'acme_go', exists: true, custom: [] };
    expect(
      triggerPropertyFinding(
        { pipelineId: 'p', triggerProperty: 'acme_go' },
        lookup,
        'hubspot',
        'acme',
        SETUP,
      ),
    ).toBeUndefined();
    expect(
      triggerPropertyFinding(
        { pipelineId: 'p', triggerStageId: 's' },
        missing('x'),
        'hubspot',
        'acme',
        SETUP,
      ),
    ).toBeUndefined();
  });

  it('names the key, the property and the custom deal properties there are, when few', () => {
    const finding = triggerPropertyFinding(
      { pipelineId: 'p', triggerProperty: 'acme_go' },
      missing('acme_go', [
        { name: 'cash_offer_request_trigger', label: 'Request cash offer' },
        { name: 'acme_flag', label: 'Acme flag' },
      ]),
      'hubspot',
      'acme',
      SETUP,
    );
    expect(finding).toEqual({
      severity: 'problem',
      path: 'crm.pipelines.listings.triggerProperty',
      id: 'acme_go',
      message:
        "'acme_go' is not a deal property in this HubSpot account; its custom deal properties are: cash_offer_request_trigger (Request cash offer), acme_flag (Acme flag)",
      existing: [
        { id: 'cash_offer_request_trigger', label: 'Request cash offer' },
        { id: 'acme_flag', label: 'Acme flag' },
      ],
    });
  });

  it('counts the custom properties instead of naming them when there are many, and says when there are none', () => {
    const many = Array.from({ length: 11 }, (_, i) => ({ name: `p_${i}`, label: `P ${i}` }));
    const crowded = triggerPropertyFinding(
      { pipelineId: 'p', triggerProperty: 'acme_go' },
      missing('acme_go', many),
      'hubspot',
      'acme',
      SETUP,
    );
    expect(crowded?.message).toBe(
      "'acme_go' is not a deal property in this HubSpot account; it has 11 custom deal properties (--json lists them)",
    );
    expect(crowded?.existing).toHaveLength(11);
    const bare = triggerPropertyFinding(
      { pipelineId: 'p', triggerProperty: 'acme_go' },
      missing('acme_go'),
      'hubspot',
      'acme',
      SETUP,
    );
    expect(bare?.message).toMatch(/; it has no custom deal properties$/);
  });

  it("gives the CRM's own name when it differs (a Follow Up Boss custom field)", () => {
    const finding = triggerPropertyFinding(
      { pipelineId: '2', triggerProperty: 'acme_go' },
      missing('customAcmeGo', [
        { name: 'customCashOfferRequestTrigger', label: 'Cash Offer Request Trigger' },
      ]),
      'followupboss',
      'fubco',
      SETUP,
    );
    expect(finding?.message).toBe(
      "'acme_go' (field customAcmeGo) is not a deal property in this Follow Up Boss account; its custom deal properties are: customCashOfferRequestTrigger (Cash Offer Request Trigger)",
    );
  });

  it('only warns of a property setup-crm creates, naming the command', () => {
    const finding = triggerPropertyFinding(
      { pipelineId: 'p', triggerProperty: 'cash_offer_request_trigger' },
      missing('cash_offer_request_trigger'),
      'hubspot',
      'acme',
      SETUP,
    );
    expect(finding).toMatchObject({
      severity: 'warning',
      message:
        "'cash_offer_request_trigger' is not a deal property in this HubSpot account yet: setup-crm creates it (npm run cli -- setup-crm --brokerage acme)",
    });
  });

  it('checks the default trigger when neither a property nor a stage is configured, and says so', () => {
    const finding = triggerPropertyFinding(
      { pipelineId: 'p' },
      missing('cash_offer_request_trigger'),
      'hubspot',
      'acme',
      SETUP,
    );
    expect(finding).toMatchObject({ severity: 'warning', id: 'cash_offer_request_trigger' });
    expect(finding?.message).toMatch(
      /^is not set \(nor triggerStageId\), so deals are flagged by 'cash_offer_request_trigger', which is not a deal property/,
    );
  });
});
