import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { ownerProcess, processOwner, SystemRunOwners, workerOwner } from './run-owner';

describe('SystemRunOwners', () => {
  const owners = new SystemRunOwners();

  it('names this process <host>/<pid> and counts it alive', () => {
    expect(owners.self).toBe(`${hostname()}/${process.pid}`);
    expect(owners.alive(owners.self)).toBe(true);
  });

  it('counts a live process of this host alive, and one that exited gone', () => {
    expect(owners.alive(processOwner(hostname(), process.ppid))).toBe(true);
    const exited = spawnSync(process.execPath, ['-e', '0']);
    expect(owners.alive(processOwner(hostname(), exited.pid))).toBe(false);
  });

  it('counts a holder on another host, or an owner it cannot read, as gone', () => {
    expect(owners.alive(`elsewhere.example/${process.pid}`)).toBe(false);
    expect(owners.alive('no-pid-here')).toBe(false);
    expect(owners.alive(`${hostname()}/0`)).toBe(false);
  });
});

describe('a PostgreSQL worker owner', () => {
  it('is the process owner tagged with its start, different at each start', () => {
    const first = workerOwner('worker-a', 1);
    const second = workerOwner('worker-a', 1);
    expect(first).toMatch(/^worker-a\/1#[0-9a-f]{8}$/);
    expect(second).not.toBe(first);
    expect(ownerProcess(first)).toEqual({ host: 'worker-a', pid: 1, tagged: true });
    expect(ownerProcess('worker-a/1')).toEqual({ host: 'worker-a', pid: 1, tagged: false });
  });

  it('still has its pid asked of the OS, and a predecessor with this pid counts as gone', () => {
    const owners = new SystemRunOwners(workerOwner());
    expect(owners.alive(owners.self)).toBe(true);
    expect(owners.alive(workerOwner(hostname(), process.ppid))).toBe(true);
    const exited = spawnSync(process.execPath, ['-e', '0']);
    expect(owners.alive(workerOwner(hostname(), exited.pid))).toBe(false);
    // The same host and pid, another start: a container restarted as pid 1 again.
    expect(owners.alive(workerOwner())).toBe(false);
    // An untagged owner of this pid is this process as SQLite names it.
    expect(owners.alive(processOwner())).toBe(true);
  });
});
