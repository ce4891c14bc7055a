import { CashOfferError } from '../cash-offer/cash-offer.error';
import { ManualClock } from '../common/clock';
import type { ConfigChangeListener } from '../config/config.service';
import { CredentialWatch } from './credential-watch.service';

const refused = () =>
  new CashOfferError({
    code: 'AUTH_FAILED',
    operation: 'GET /active-offer-requests',
    status: 401,
    message: 'the API key in the Authorization header is not valid',
  });

// The watch with its collaborators as plain fakes: one brokerage whose config a test reloads, and a
// Cash Offer probe each test answers by hand (the CRM's always works).
function watchOf() {
  const secrets = (key: string) => ({ cashOfferApiKey: key, crmToken: 'crm-token', webhookSecret: 'w' });
  let brokerage = {
    id: 'acme',
    fingerprint: 'old-key',
    config: { enabled: true },
    secrets: secrets('old-key'),
  };
  let onDisk = secrets('old-key');
  let onReload: ConfigChangeListener | undefined;
  const answers: { resolve: () => void; reject: (e: unknown) => void }[] = [];
  const paused: string[] = [];
  const cleared: string[] = [];
  let suspect: ((id: string) => void) | undefined;
  const watch = new CredentialWatch(
    {
      get: () => brokerage,
      secretsOnDisk: () => onDisk,
      onChange: (listener: ConfigChangeListener) => {
        onReload = listener;
        return () => undefined;
      },
    } as never,
    {
      list: () => Promise.resolve([]),
      pauseForCredential: (_id: string, remote: string) => {
        paused.push(remote);
        return Promise.resolve(true);
      },
      clearCredential: (_id: string, remote: string) => {
        cleared.push(remote);
        return Promise.resolve(true);
      },
    } as never,
    {
      get: () => ({
        listActiveOfferRequests: () =>
          new Promise<void>((resolve, reject) => answers.push({ resolve, reject })),
      }),
    } as never,
    { get: () => Promise.resolve({ port: { listPipelines: () => Promise.resolve([]) } }) } as never,
    {
      listen: (listener: (id: string) => void) => {
        suspect = listener;
        return () => undefined;
      },
    } as never,
    new ManualClock(),
    { alerts: { credentialRecheckMs: 3_600_000 } } as never,
  );
  return {
    watch,
    paused,
    cleared,
    answers,
    suspect: (id: string) => suspect!(id),
    // The operator writes another key to the brokerage's key file.
    fixKeyOnDisk: () => {
      onDisk = secrets('new-key');
    },
    reload: async () => {
      onDisk = secrets('new-key');
      brokerage = { ...brokerage, fingerprint: 'new-key', secrets: onDisk };
      await onReload!({ added: [], changed: [brokerage], removed: [] } as never);
    },
  };
}

const until = async (condition: () => boolean): Promise<void> => {
  for (let i = 0; i < 100 && !condition(); i++) await new Promise((resolve) => setImmediate(resolve));
  if (!condition()) throw new Error('the watch did not get there');
};

describe('CredentialWatch', () => {
  it('a refusal pauses the brokerage, and a check after the key is fixed lifts the pause', async () => {
    const w = watchOf();
    w.watch.onApplicationBootstrap();
    w.suspect('acme');
    await until(() => w.answers.length === 1);
    w.answers[0].reject(refused());
    await until(() => w.paused.length === 1);
    expect(w.paused).toEqual(['cash-offer']);

    const reloaded = w.reload();
    await until(() => w.answers.length === 2);
    w.answers[1].resolve();
    await reloaded;
    expect(w.cleared).toEqual(['crm', 'cash-offer', 'crm']);
    await w.watch.onApplicationShutdown();
  });

  // A job's 401 made a check with the old key; the operator fixed the key and reloaded while it
  // was out. Before, the reload's check was that same check: its refusal kept the brokerage paused
  // (and, with another worker having seen the new key work, alerted again).
  it('a check begun before a reload neither answers the reload nor applies its refusal of the old key', async () => {
    const w = watchOf();
    w.watch.onApplicationBootstrap();
    w.suspect('acme');
    await until(() => w.answers.length === 1);

    const reloaded = w.reload();
    w.answers[0].reject(refused());
    await until(() => w.answers.length === 2);
    expect(w.paused).toEqual([]);
    w.answers[1].resolve();
    await reloaded;
    expect(w.paused).toEqual([]);
    expect(w.cleared).toEqual(['cash-offer', 'crm']);
    await w.watch.onApplicationShutdown();
  });

  // Another worker reloaded and works with the new key; this one has not reloaded yet, and its old
  // key is refused. Before, it paused the brokerage again (every worker honours a pause) and alerted
  // a second time (ci60, alerts-workers).
  it('a refusal of a key the brokerage file no longer gives does not pause', async () => {
    const w = watchOf();
    w.watch.onApplicationBootstrap();
    w.fixKeyOnDisk();
    w.suspect('acme');
    await until(() => w.answers.length === 1);
    w.answers[0].reject(refused());
    await w.watch.check('acme', 0);
    expect(w.paused).toEqual([]);

    const reloaded = w.reload();
    await until(() => w.answers.length === 2);
    w.answers[1].resolve();
    await reloaded;
    expect(w.paused).toEqual([]);
    await w.watch.onApplicationShutdown();
  });
});
