import { request } from 'node:http';
import { startHubSpotEmulator } from '../../../sandbox/hubspot';
import type { HubSpotEmulator } from '../../../sandbox/hubspot';
import { freePort } from '../../support/free-port';
import { EmulatorControl } from '../crm/emulator-control';

// The wire details of the emulator's HTTP layer (a Nest application since it replaced the
// hand-written node:http server), read from the raw answer: what no SDK call shows.
interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

function send(url: string, method: string, path: string, body?: string | Buffer, token?: string) {
  return new Promise<RawAnswer>((resolve, reject) => {
    const { hostname, port } = new URL(url);
    const req = request(
      {
        host: hostname,
        port,
        method,
        path,
        headers: token ? { authorization: `Bearer ${token}` } : {},
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString(),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const json = (answer: RawAnswer): Record<string, unknown> =>
  JSON.parse(answer.text) as Record<string, unknown>;

describe('HubSpot emulator: the HTTP contract', () => {
  let emulator: HubSpotEmulator;
  let control: EmulatorControl;
  const call = (method: string, path: string, body?: string | Buffer) =>
    send(emulator.url, method, path, body, emulator.token);

  beforeAll(async () => {
    emulator = await startHubSpotEmulator({ port: await freePort(), token: 'pat-wire', searchIndexLagMs: 0 });
    control = new EmulatorControl(emulator.url);
  });

  afterAll(async () => {
    await emulator.close();
  });

  beforeEach(async () => {
    await control.reset();
  });

  async function deal(name: string): Promise<string> {
    const created = await call(
      'POST',
      '/crm/v3/objects/deals',
      JSON.stringify({ properties: { dealname: name } }),
    );
    return String(json(created).id);
  }

  it('answers JSON as HubSpot spells its Content-Type, with a length, the rate-limit headers and no express extras', async () => {
    const id = await deal('wire');
    const answer = await call('GET', `/crm/v3/objects/deals/${id}`);
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('application/json;charset=utf-8');
    expect(Number(answer.headers['content-length'])).toBe(Buffer.byteLength(answer.text));
    expect(answer.headers['x-hubspot-ratelimit-max']).toBe('190');
    expect(answer.headers['x-powered-by']).toBeUndefined();
    expect(answer.headers.etag).toBeUndefined();
  });

  it('answers 204 with no body and no Content-Type', async () => {
    const answer = await call('DELETE', `/crm/v3/objects/deals/${await deal('gone')}`);
    expect(answer.status).toBe(204);
    expect(answer.text).toBe('');
    expect(answer.headers['content-type']).toBeUndefined();
  });

  it('takes a trailing slash and array query parameters repeated or comma-joined', async () => {
    const id = await deal('slash');
    const repeated = await call('GET', `/crm/v3/objects/deals/${id}/?properties=dealname&properties=amount`);
    const joined = await call('GET', `/crm/v3/objects/deals/${id}?properties=dealname,amount`);
    expect(repeated.status).toBe(200);
    expect(json(repeated).properties).toEqual(json(joined).properties);
    expect(Object.keys(json(joined).properties as object)).toEqual(
      expect.arrayContaining(['dealname', 'amount']),
    );
    const requests = await control.requests();
    expect(requests.map((r) => r.path)).toContain(`/crm/v3/objects/deals/${id}`);
  });

  it('routes batch/read and property groups to their own handlers, not to the {id} routes', async () => {
    const id = await deal('batch');
    const read = await call('POST', '/crm/v3/objects/deals/batch/read', JSON.stringify({ inputs: [{ id }] }));
    expect(read.status).toBe(200);
    expect(json(read).status).toBe('COMPLETE');
    const groups = await call('GET', '/crm/v3/properties/deals/groups');
    expect(groups.status).toBe(200);
    expect(json(groups).results).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'dealinformation' })]),
    );
  });

  it('reads any Content-Type as JSON; bad JSON is a 400 and a body over 10 MB a 413, in HubSpot shape', async () => {
    const bad = await call('POST', '/crm/v3/objects/deals', '{not json');
    expect(bad.status).toBe(400);
    expect(json(bad)).toMatchObject({
      status: 'error',
      category: 'VALIDATION_ERROR',
      message: 'Invalid input JSON on line 1: the body is not valid JSON',
    });
    expect(typeof json(bad).correlationId).toBe('string');
    const big = await call('POST', '/crm/v3/objects/deals', Buffer.alloc(10 * 1024 * 1024 + 1, 0x20));
    expect(big.status).toBe(413);
    expect(json(big)).toMatchObject({ category: 'VALIDATION_ERROR', message: 'Request body too large' });
  });

  it('answers an unknown path 401 without a token and 404 with one; an unknown control path 404 without', async () => {
    expect((await send(emulator.url, 'GET', '/crm/v3/nothing')).status).toBe(401);
    const unknown = await call('POST', '/crm/v3/objects/deals/1');
    expect(unknown.status).toBe(404);
    expect(json(unknown)).toMatchObject({
      category: 'OBJECT_NOT_FOUND',
      message: 'Unable to find a route for POST /crm/v3/objects/deals/1',
    });
    const controlPath = await send(emulator.url, 'GET', '/__control/nothing');
    expect(controlPath.status).toBe(404);
    expect(json(controlPath).message).toBe('No control route GET /__control/nothing');
  });

  // New with express: HEAD is served as GET without a body (the hand-written server answered 404).
  it('answers HEAD like GET, without a body', async () => {
    const id = await deal('head');
    const answer = await call('HEAD', `/crm/v3/objects/deals/${id}`);
    expect(answer.status).toBe(200);
    expect(answer.text).toBe('');
  });
});
