import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { processOwner, SystemRunOwners } from './run-owner';

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
