import { ObjectStore } from './emulator.object-store';
import { historyBlock } from './emulator.property-history';
import { SchemaStore } from './emulator.schema-store';
import { API_SOURCE, EMULATOR_INTEGRATION_ID, IMPORT_SOURCE, uiSource } from './emulator.write-source';

// A property's history as HubSpot keeps it: every value set, newest first, with who set it
// (docs/crm-hubspot.md, "The emulator": property history).
describe('property history', () => {
  const store = () => new ObjectStore(new SchemaStore());

  it('keeps each value a write sets, newest first, with its source and time', () => {
    const s = store();
    const deal = s.create('deals', { dealname: 'Elm St', dealstage: 'appointmentscheduled' }, 1_000);
    s.update(deal, { dealstage: 'qualifiedtobuy' }, 2_000, uiSource(7));
    s.update(deal, { dealstage: 'closedwon' }, 3_000, API_SOURCE);
    expect(deal.history.dealstage).toEqual([
      { value: 'closedwon', timestamp: 3_000, sourceType: 'INTEGRATION', sourceId: EMULATOR_INTEGRATION_ID },
      {
        value: 'qualifiedtobuy',
        timestamp: 2_000,
        sourceType: 'CRM_UI',
        sourceId: 'userId:7',
        updatedByUserId: 7,
      },
      {
        value: 'appointmentscheduled',
        timestamp: 1_000,
        sourceType: 'INTEGRATION',
        sourceId: EMULATOR_INTEGRATION_ID,
      },
    ]);
    // The pipeline the store defaults a deal to was set by the same create.
    expect(deal.history.pipeline).toEqual([expect.objectContaining({ value: 'default', timestamp: 1_000 })]);
  });

  it('adds nothing for a value written again unchanged, and an empty value for a cleared one', () => {
    const s = store();
    const deal = s.create('deals', { dealname: 'Elm St', amount: '100' }, 1_000, IMPORT_SOURCE);
    s.update(deal, { dealname: 'Elm St', amount: '' }, 2_000);
    expect(deal.history.dealname).toEqual([{ value: 'Elm St', timestamp: 1_000, sourceType: 'IMPORT' }]);
    expect(deal.history.amount.map((e) => e.value)).toEqual(['', '100']);
  });

  it('keeps none for the bookkeeping properties the store sets itself', () => {
    const s = store();
    const contact = s.create('contacts', { email: 'a@example.com' }, 1_000);
    s.update(contact, { firstname: 'Ann' }, 2_000);
    expect(Object.keys(contact.history).sort()).toEqual(['email', 'firstname']);
  });

  it('serves the names asked with ISO timestamps; an empty list for a property never set', () => {
    const s = store();
    const deal = s.create('deals', { dealname: 'Elm St' }, Date.UTC(2025, 0, 9, 7, 18, 4, 947), uiSource(3));
    expect(historyBlock(deal, ['dealname', 'amount'])).toEqual({
      dealname: [
        {
          value: 'Elm St',
          timestamp: '2025-01-09T07:18:04.947Z',
          sourceType: 'CRM_UI',
          sourceId: 'userId:3',
          updatedByUserId: 3,
        },
      ],
      amount: [],
    });
  });
});
