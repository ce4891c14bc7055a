import { hubSpotAdapterOptions } from './hubspot-crm.factory';

describe('hubSpotAdapterOptions', () => {
  it('reads the token from the named environment variable', () => {
    const options = hubSpotAdapterOptions(
      { tokenEnv: 'ACME_HUBSPOT_TOKEN', baseUrl: 'http://127.0.0.1:4020' },
      { overlapMs: 60_000 },
      { ACME_HUBSPOT_TOKEN: 'pat-123' },
    );
    expect(options).toEqual({ accessToken: 'pat-123', basePath: 'http://127.0.0.1:4020', overlapMs: 60_000 });
  });

  it('names the missing variable, never a value', () => {
    expect(() => hubSpotAdapterOptions({ tokenEnv: 'ACME_HUBSPOT_TOKEN' }, {}, {})).toThrow(
      'HubSpot private-app token: environment variable ACME_HUBSPOT_TOKEN is not set',
    );
  });
});
