import type { BrokerageCrm } from '../../brokerages/brokerage-crm';
import { ManualClock } from '../../common/clock';
import { CrmError } from '../../crm';
import type { LedgerTurns, LinkRepository, RecordErrorRepository } from '../../ledger';
import type { DecisionHistoryRecorder } from '../history/decision-history.recorder';
import { DEAL } from '../common/listing-deal.properties';
import { RequestStatusService } from './request-status.service';

// What the CRM's refusal of one deal's status write leaves: the request's outcome `failed`, the
// refusal stored on the request until a later write of its status goes through.
describe('RequestStatusService when the CRM refuses the deal write', () => {
  const links = {
    find: jest.fn(async () => null),
    upsertLinks: jest.fn(async () => []),
    noteRead: jest.fn(async () => undefined),
  };
  const recordErrors = { record: jest.fn(async () => ({})), resolve: jest.fn(async () => 1) };
  const turns = { run: <T>(_key: string, work: () => Promise<T>) => work() };
  const history = { requestShownEntries: () => [] };
  const updateRecords = jest.fn();
  const crm = { brokerageId: 'acme', port: { updateRecords } } as unknown as BrokerageCrm;
  const service = new RequestStatusService(
    links as unknown as LinkRepository,
    history as unknown as DecisionHistoryRecorder,
    turns as unknown as LedgerTurns,
    recordErrors as unknown as RecordErrorRepository,
    new ManualClock(),
  );

  it('stores the refusal on the request and answers failed; a later write that goes through clears it', async () => {
    updateRecords.mockResolvedValueOnce([
      { ok: false, error: new CrmError('NOT_FOUND', 'deal 55 was not found', { record: '55' }) },
    ]);
    await expect(service.apply(crm, 1001, 'receiving_offers', { externalId: '55' })).resolves.toBe('failed');
    expect(recordErrors.record).toHaveBeenCalledWith({
      brokerageId: 'acme',
      recordKind: 'request',
      recordRef: '1001',
      field: DEAL.status,
      message: expect.stringContaining(
        'offer request 1001: its status "receiving_offers" could not be shown on listing deal 55: deal 55 was not found',
      ),
      code: 'NOT_FOUND',
    });
    expect(links.upsertLinks).not.toHaveBeenCalled();
    expect(recordErrors.resolve).not.toHaveBeenCalled();

    updateRecords.mockResolvedValueOnce([{ ok: true, record: { id: '55', properties: {} } }]);
    await expect(service.apply(crm, 1001, 'receiving_offers', { externalId: '55' })).resolves.toBe('updated');
    expect(recordErrors.resolve).toHaveBeenCalledWith('acme', 'request', '1001');
    expect(links.upsertLinks).toHaveBeenCalledTimes(1);
  });
});
