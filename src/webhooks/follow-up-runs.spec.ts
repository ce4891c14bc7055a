import type { EarlyRunTrigger } from '../scheduler/early-run.trigger';
import { FollowUpRuns } from './follow-up-runs';

describe('FollowUpRuns', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  const setup = () => {
    const request = jest.fn<ReturnType<EarlyRunTrigger['request']>, Parameters<EarlyRunTrigger['request']>>(
      async () => 'queued',
    );
    return { request, followUps: new FollowUpRuns({ request }) };
  };

  it('asks for a run at each delay', () => {
    const { request, followUps } = setup();
    followUps.schedule('acme', 'crm-changes', [100, 1000]);
    jest.advanceTimersByTime(99);
    expect(request).not.toHaveBeenCalled();
    jest.advanceTimersByTime(1);
    expect(request).toHaveBeenCalledWith('acme', 'crm-changes');
    jest.advanceTimersByTime(900);
    expect(request).toHaveBeenCalledTimes(2);
  });

  it('a later notification restarts the schedule instead of adding one', () => {
    const { request, followUps } = setup();
    followUps.schedule('acme', 'crm-changes', [100, 1000]);
    jest.advanceTimersByTime(50);
    followUps.schedule('acme', 'crm-changes', [100, 1000]);
    jest.advanceTimersByTime(2000);
    expect(request).toHaveBeenCalledTimes(2);
  });

  it('keeps brokerages apart, and asks for nothing after cancelAll or shutdown', () => {
    const { request, followUps } = setup();
    followUps.schedule('acme', 'crm-changes', [100]);
    followUps.schedule('other', 'crm-changes', [100]);
    jest.advanceTimersByTime(100);
    expect(request.mock.calls.map(([id]) => id).sort()).toEqual(['acme', 'other']);
    followUps.schedule('acme', 'crm-changes', [100]);
    followUps.cancelAll();
    followUps.onApplicationShutdown();
    followUps.schedule('acme', 'crm-changes', [100]);
    jest.advanceTimersByTime(1000);
    expect(request).toHaveBeenCalledTimes(2);
  });
});
