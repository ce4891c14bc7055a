import { Logger } from '@nestjs/common';
import type { WorkerHeartbeatRepository } from '../../ledger';
import { waitFor } from '../../../test/support/wait-for';
import { WorkerHeartbeat } from './worker-heartbeat';

// The ledger's heartbeats as the loop sees them: each beat and the row's removal, in order.
class MemoryHeartbeats {
  readonly calls: string[] = [];
  failNext = false;
  // Holds the beats (a starved database or event loop) while set.
  stall: Promise<void> | undefined;
  async beat(owner: string): Promise<void> {
    if (this.failNext) {
      this.failNext = false;
      throw new Error('database unreachable');
    }
    await this.stall;
    this.calls.push(`beat ${owner}`);
  }
  async end(owner: string): Promise<void> {
    this.calls.push(`end ${owner}`);
  }
}

describe('WorkerHeartbeat', () => {
  it('beats before start resolves, then every interval with its after-beat work, and removes its row on stop', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const heartbeats = new MemoryHeartbeats();
    let checks = 0;
    const heartbeat = new WorkerHeartbeat(
      heartbeats as unknown as WorkerHeartbeatRepository,
      'w/1#ab',
      1,
      async () => {
        checks += 1;
        heartbeats.calls.push('check');
      },
    );
    await heartbeat.start();
    expect(heartbeats.calls).toEqual(['beat w/1#ab', 'check']);
    // A beat that fails is tried again at the next interval, with no after-beat work meanwhile (a
    // worker whose own beat is old could take its own jobs for a dead worker's).
    heartbeats.failNext = true;
    await waitFor(() => heartbeats.calls.filter((c) => c.startsWith('beat')).length >= 2, {
      what: 'a later beat',
      timeoutMs: 5000,
    });
    await waitFor(() => checks >= 2, { what: 'the check after it', timeoutMs: 5000 });
    expect(heartbeats.calls.slice(0, 4)).toEqual(['beat w/1#ab', 'check', 'beat w/1#ab', 'check']);
    expect(warn).toHaveBeenCalledWith('could not write the heartbeat of w/1#ab: Error: database unreachable');
    warn.mockRestore();
    await heartbeat.stop();
    expect(heartbeats.calls.at(-1)).toBe('end w/1#ab');
  });

  // Workers of one saturated host are all late at once: each would take the others for dead.
  it('tells its after-beat work whether its own beat came on time: not the first, not one late after a stall', async () => {
    const heartbeats = new MemoryHeartbeats();
    const seen: boolean[] = [];
    const heartbeat = new WorkerHeartbeat(
      heartbeats as unknown as WorkerHeartbeatRepository,
      'w/2#cd',
      1,
      async ({ onTime }) => {
        seen.push(onTime);
      },
    );
    await heartbeat.start();
    await waitFor(() => seen.length >= 2, { what: 'a second beat', timeoutMs: 5000 });
    let release!: () => void;
    heartbeats.stall = new Promise<void>((resolve) => (release = resolve));
    const before = seen.length;
    // Longer than two intervals with no beat written.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    heartbeats.stall = undefined;
    release();
    await waitFor(() => seen.length >= before + 2, {
      what: 'the late beat and one after it',
      timeoutMs: 5000,
    });
    await heartbeat.stop();
    expect(seen.slice(0, 2)).toEqual([false, true]);
    expect(seen.slice(before, before + 2)).toEqual([false, true]);
  });
});
