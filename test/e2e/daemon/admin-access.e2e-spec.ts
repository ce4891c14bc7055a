import { request } from 'node:http';
import { freePort } from '../../support/free-port';
import {
  DAEMON_WAIT,
  MAIN_JS,
  baseEnv,
  brokerageConfig,
  makeWorkspace,
  startProcess,
  writeBrokerage,
  type RunningProcess,
  type Workspace,
} from './daemon.fixtures';
import { waitFor } from '../../support/wait-for';

const TOKEN = 'admin-token-8c1f0e7d6b5a4c3b';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

// Plain node:http, so the test sets Host, Origin and Cookie as an attacker or a browser would.
function call(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

// The admin listener as an operator and an attacker meet it, on the compiled daemon (`npm run
// build` first): the console, its actions and the metrics behind ADMIN_TOKEN, health open, no
// foreign Host, no `Origin: null` post, the token in no answer and no log line.
describe('the admin listener behind a credential', () => {
  let ws: Workspace;
  let daemon: RunningProcess;
  let port: number;

  beforeAll(async () => {
    ws = makeWorkspace();
    port = await freePort();
    const config = brokerageConfig('acme') as { cashOffer: { baseUrl: string }; crm: { baseUrl: string } };
    // Nothing listens on port 9: the jobs fail quietly, which is not under test.
    config.cashOffer.baseUrl = 'http://127.0.0.1:9/api/v2';
    config.crm.baseUrl = 'http://127.0.0.1:9';
    writeBrokerage(ws, config);
    daemon = startProcess(MAIN_JS, { ...baseEnv(ws, port, ['acme']), ADMIN_TOKEN: TOKEN });
    await waitFor(() => daemon.stdout().includes('"listening on') || daemon.child.exitCode !== null, {
      what: 'the daemon to listen',
      ...DAEMON_WAIT,
      timeoutMs: 30_000,
    });
    if (daemon.child.exitCode !== null) throw new Error(`daemon exited: ${daemon.stderr()}`);
  });

  afterAll(async () => {
    await daemon?.stop();
    ws?.cleanup();
  });

  const host = () => ({ host: `127.0.0.1:${port}` });

  it('health needs nothing; metrics and the console refuse a missing or wrong token and serve a right one', async () => {
    expect((await call(port, 'GET', '/health/live', host())).status).toBe(200);
    expect((await call(port, 'GET', '/health/ready', host())).status).toBe(200);
    // A brokerage's own readiness names its problems: behind the token like the rest.
    expect((await call(port, 'GET', '/health/ready/acme', host())).status).toBe(401);
    expect((await call(port, 'GET', '/metrics', host())).status).toBe(401);
    expect(
      (await call(port, 'GET', '/metrics', { ...host(), authorization: 'Bearer wrong-token-000000000' }))
        .status,
    ).toBe(401);
    const metrics = await call(port, 'GET', '/metrics', { ...host(), authorization: `Bearer ${TOKEN}` });
    expect(metrics.status).toBe(200);
    expect(metrics.body).toContain('cash_offer_sync');
    expect(metrics.body).not.toContain(TOKEN);
    // The scheme is case-insensitive.
    expect(
      (await call(port, 'GET', '/metrics', { ...host(), authorization: `bearer ${TOKEN}` })).status,
    ).toBe(200);
    expect((await call(port, 'GET', '/console', host())).status).toBe(401);
    // A browser is sent to the sign-in form.
    const browser = await call(port, 'GET', '/console', { ...host(), accept: 'text/html' });
    expect(browser.status).toBe(303);
    expect(browser.headers.location).toContain('/login');
    // An action without a credential changes nothing.
    const post = await call(
      port,
      'POST',
      '/console/pause',
      { ...host(), 'content-type': 'application/x-www-form-urlencoded' },
      'brokerage=acme',
    );
    expect(post.status).toBe(401);
  });

  it('signs a browser in once with a session cookie (HttpOnly, SameSite=Strict, 12 hours, stated)', async () => {
    const form = await call(port, 'GET', '/login', host());
    expect(form.status).toBe(200);
    expect(form.body).toContain('name="token"');
    expect(form.body).toContain('12 hours');
    const wrong = await call(
      port,
      'POST',
      '/login',
      { ...host(), 'content-type': 'application/x-www-form-urlencoded' },
      'token=not-it&next=%2Fconsole',
    );
    expect(wrong.status).toBe(303);
    expect(wrong.headers['set-cookie']).toBeUndefined();
    const right = await call(
      port,
      'POST',
      '/login',
      { ...host(), 'content-type': 'application/x-www-form-urlencoded', origin: `http://127.0.0.1:${port}` },
      `token=${TOKEN}&next=%2Fconsole`,
    );
    expect(right.status).toBe(303);
    expect(right.headers.location).toBe('/console');
    // Signed in from a link whose `next` a browser reads as another site: sent to the console instead.
    const elsewhere = await call(
      port,
      'POST',
      '/login',
      { ...host(), 'content-type': 'application/x-www-form-urlencoded', origin: `http://127.0.0.1:${port}` },
      `token=${TOKEN}&next=${encodeURIComponent('/\\evil.example/console')}`,
    );
    expect(elsewhere.headers.location).toBe('/console');
    const cookie = String(right.headers['set-cookie']);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).toMatch(/Max-Age=43200/);
    const session = cookie.split(';')[0];
    const page = await call(port, 'GET', '/console', { ...host(), cookie: session, accept: 'text/html' });
    expect(page.status).toBe(200);
    expect(page.body).not.toContain(TOKEN);
    // The session runs the page's actions (with the form's own token), from the page's origin.
    const formToken = /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1];
    expect(formToken).toBeDefined();
    const pause = await call(
      port,
      'POST',
      '/console/pause',
      {
        ...host(),
        cookie: session,
        origin: `http://127.0.0.1:${port}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      `_csrf=${formToken}&brokerage=acme&reason=signed+in`,
    );
    expect(pause.status).toBe(303);
    const paused = await call(port, 'GET', '/console', { ...host(), cookie: session });
    expect(paused.body).toContain('signed in');
    // So does the bearer token, as a script sends it.
    const resume = await call(
      port,
      'POST',
      '/console/resume',
      { ...host(), authorization: `Bearer ${TOKEN}`, 'content-type': 'application/x-www-form-urlencoded' },
      `_csrf=${formToken}&brokerage=acme`,
    );
    expect(resume.status).toBe(303);
    // Signed out, the same cookie opens nothing.
    await call(port, 'POST', '/logout', { ...host(), cookie: session, origin: `http://127.0.0.1:${port}` });
    expect((await call(port, 'GET', '/console', { ...host(), cookie: session })).status).toBe(401);
  });

  it('answers only its own host names and refuses posts from a null or foreign origin', async () => {
    const rebound = await call(port, 'GET', '/metrics', {
      host: 'attacker.example:80',
      authorization: `Bearer ${TOKEN}`,
    });
    expect(rebound.status).toBe(421);
    expect((await call(port, 'GET', '/health/live', { host: 'attacker.example' })).status).toBe(421);
    for (const origin of ['null', 'http://attacker.example']) {
      const post = await call(
        port,
        'POST',
        '/console/pause',
        {
          ...host(),
          origin,
          authorization: `Bearer ${TOKEN}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        'brokerage=acme',
      );
      expect({ origin, status: post.status }).toEqual({ origin, status: 403 });
    }
  });

  it('answers hostile bodies on every post route with a 3xx or 4xx, never a 5xx, and keeps serving', async () => {
    const signedIn = { ...host(), origin: `http://127.0.0.1:${port}`, authorization: `Bearer ${TOKEN}` };
    const form = 'application/x-www-form-urlencoded';
    // With the page's own form token, so the bodies reach the actions rather than the CSRF check.
    const page = await call(port, 'GET', '/console', { ...host(), authorization: `Bearer ${TOKEN}` });
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1];
    expect(csrf).toBeDefined();
    const bodies: [string, Record<string, string>, string][] = [
      [
        'repeated fields',
        { 'content-type': form },
        'token=a&token=b&brokerage=acme&brokerage=zed&job=x&job=y',
      ],
      ['bracketed fields', { 'content-type': form }, 'token[a]=b&brokerage[]=acme&reason[x][y]=z&_csrf[]=1'],
      ['bad percent-encoding', { 'content-type': form }, 'token=%ZZ%&brokerage=%E0%A4%A&reason=%'],
      [
        'NUL and control bytes',
        { 'content-type': form },
        'brokerage=acme%00&reason=%01%02%1b[31m&job=crm-changes%0d%0a',
      ],
      ['a huge field', { 'content-type': form }, `brokerage=acme&reason=${'x'.repeat(2_000_000)}`],
      [
        'JSON',
        { 'content-type': 'application/json' },
        '{"brokerage":{"__proto__":{"admin":true}},"token":[1]}',
      ],
      ['broken JSON', { 'content-type': 'application/json' }, '{"brokerage":'],
      ['text', { 'content-type': 'text/plain' }, 'brokerage=acme'],
      [
        'multipart',
        { 'content-type': 'multipart/form-data; boundary=x' },
        '--x\r\nContent-Disposition: form-data; name="brokerage"\r\n\r\nacme\r\n--x--',
      ],
      ['no content type', {}, 'brokerage=acme'],
      ['empty', { 'content-type': form }, ''],
    ];
    const routes = [
      '/login',
      '/logout',
      '/console/pause',
      '/console/resume',
      '/console/replay',
      '/console/run',
    ];
    const answers: string[] = [];
    const seen = new Set<number>();
    for (const route of routes)
      for (const [name, headers, body] of bodies) {
        const sent = headers['content-type'] === form ? `_csrf=${csrf}&${body}` : body;
        const answer = await call(port, 'POST', route, { ...signedIn, ...headers }, sent).catch(
          (error: Error) => ({ status: 0, body: error.message, headers: {} }),
        );
        // A connection closed on a body past the limit is a refusal too; anything 5xx is not.
        seen.add(answer.status);
        if (answer.status >= 500 || (answer.status === 0 && !/ECONNRESET|EPIPE/.test(answer.body)))
          answers.push(`${route} ${name}: ${answer.status} ${answer.body.slice(0, 200)}`);
      }
    expect(answers).toEqual([]);
    // The actions were reached (303 with a notice), not only refused at the door.
    expect(seen.has(303)).toBe(true);
    expect((await call(port, 'GET', '/health/live', host())).status).toBe(200);
    expect(daemon.child.exitCode).toBeNull();
    // Nothing hostile paused the brokerage.
    expect(
      (await call(port, 'GET', '/console', { ...host(), authorization: `Bearer ${TOKEN}` })).body,
    ).not.toContain('x'.repeat(100));
  });

  it('never logs the token', () => {
    expect(daemon.stdout() + daemon.stderr()).not.toContain(TOKEN);
  });
});

// A token of 16 characters is not to be guessed at HTTP speed: ten wrong ones from an address in
// five minutes and it is refused for the rest of them. (Before, every guess was answered at once.)
describe('wrong admin tokens', () => {
  it('refuse an address after ten, by bearer or the sign-in form, the right token too, and say when to try again', async () => {
    const ws = makeWorkspace();
    const port = await freePort();
    writeBrokerage(ws, brokerageConfig('acme'));
    const daemon = startProcess(MAIN_JS, { ...baseEnv(ws, port, ['acme']), ADMIN_TOKEN: TOKEN });
    try {
      await waitFor(() => daemon.stdout().includes('"listening on') || daemon.child.exitCode !== null, {
        what: 'the daemon to listen',
        ...DAEMON_WAIT,
        timeoutMs: 30_000,
      });
      const host = { host: `127.0.0.1:${port}` };
      const form = {
        ...host,
        'content-type': 'application/x-www-form-urlencoded',
        origin: `http://127.0.0.1:${port}`,
      };
      const signIn = (token: string) => call(port, 'POST', '/login', form, `token=${token}&next=%2Fconsole`);
      // An operator signed in before the guessing keeps their session through it.
      const session = String((await signIn(TOKEN)).headers['set-cookie']).split(';')[0];
      for (let i = 0; i < 5; i++) {
        const bearer = { ...host, authorization: `Bearer wrong-token-${i}-000000000` };
        expect((await call(port, 'GET', '/metrics', bearer)).status).toBe(401);
        const typed = await signIn(`wrong-${i}`);
        expect(typed.status).toBe(303);
        expect(typed.headers.location).toContain('failed=1');
      }
      // A sign-in with no token typed guesses nothing and is not counted; the eleventh token is.
      expect((await call(port, 'POST', '/login', form, 'next=%2Fconsole')).headers.location).toContain(
        'failed=1',
      );
      const refused = await call(port, 'GET', '/metrics', { ...host, authorization: `Bearer ${TOKEN}` });
      expect(refused.status).toBe(429);
      const retryAfter = Number(refused.headers['retry-after']);
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(300);
      expect(JSON.parse(refused.body)).toMatchObject({
        message: expect.stringMatching(/^too many wrong tokens from this address: try again in \d+ s$/),
      });
      const typedRight = await signIn(TOKEN);
      expect(typedRight.status).toBe(429);
      expect(typedRight.headers['set-cookie']).toBeUndefined();
      expect(typedRight.body).toContain('too many wrong tokens from this address');
      expect((await call(port, 'GET', '/console', { ...host, cookie: session })).status).toBe(200);
      expect((await call(port, 'GET', '/health/ready', host)).status).toBe(200);
      expect(daemon.stdout()).toMatch(/10 wrong admin tokens from \S*127\.0\.0\.1 within 5 minutes/);
      expect(daemon.stdout()).not.toContain(TOKEN);
    } finally {
      await daemon.stop();
      ws.cleanup();
    }
  });
});

describe('an admin listener beyond loopback', () => {
  it('does not start without a token, and says to set ADMIN_TOKEN', async () => {
    const ws = makeWorkspace();
    try {
      writeBrokerage(ws, brokerageConfig('acme'));
      const daemon = startProcess(MAIN_JS, {
        ...baseEnv(ws, await freePort(), ['acme']),
        ADMIN_HOST: '0.0.0.0',
      });
      const { code } = await daemon.exited;
      expect(code).toBe(1);
      // One sentence, naming the setting.
      const said = (daemon.stderr() + daemon.stdout()).trim();
      expect(said.split('\n')).toHaveLength(1);
      expect(said).toMatch(/ADMIN_HOST is "0\.0\.0\.0", beyond loopback: set ADMIN_TOKEN/);
    } finally {
      ws.cleanup();
    }
  });
});
