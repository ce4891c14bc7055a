import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const UNITS = join(__dirname, '..', '..', '..', 'deploy', 'systemd');

function systemdAnalyze(): string | undefined {
  try {
    return execFileSync('sh', ['-c', 'command -v systemd-analyze'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

// The deployment's systemd units as systemd itself reads them: `systemd-analyze verify` prints a
// warning (and still exits 0) for a directive it cannot parse, so any output is a failure. A template
// unit is verified as an instance (`@1`). Where systemd-analyze is not installed, this says so.
const analyze = systemdAnalyze();
(analyze ? describe : describe.skip)('deploy/systemd units', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'cos-units-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const verify = (path: string) => spawnSync(analyze!, ['verify', path], { encoding: 'utf8' });

  it.each(readdirSync(UNITS).filter((f) => f.endsWith('.service')))(
    '%s passes systemd-analyze verify',
    (name) => {
      const path = join(dir, name.replace('@.service', '@1.service'));
      copyFileSync(join(UNITS, name), path);
      const result = verify(path);
      expect({ status: result.status, output: `${result.stdout}${result.stderr}`.trim() }).toEqual({
        status: 0,
        output: '',
      });
    },
  );

  it('would notice a directive systemd cannot read', () => {
    const path = join(dir, 'planted.service');
    writeFileSync(path, '[Service]\nExecStart=/usr/bin/node dist/bin/daemon.js\nRestart=sometimes\n');
    expect(`${verify(path).stderr}`).toContain('Failed to parse service restart specifier');
  });
});
