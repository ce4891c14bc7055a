import { interpolateEnvironment } from './env-interpolation';

describe('interpolateEnvironment', () => {
  it('puts variables and defaults into string values at any depth, and names what is unset', () => {
    const { value, unset } = interpolateEnvironment(
      {
        webhooks: { publicBaseUrl: 'http://127.0.0.1:${WEBHOOK_PORT:-3001}' },
        crm: { baseUrl: 'https://${CRM_HOST}/api', pipelines: { listings: { pipelineId: '${PIPELINE}' } } },
        schedules: ['${A:-*/1 * * * *}'],
        timeoutMs: 5000,
        enabled: true,
      },
      { WEBHOOK_PORT: '3101', CRM_HOST: 'crm.example', PIPELINE: '' },
    );
    expect(value).toEqual({
      webhooks: { publicBaseUrl: 'http://127.0.0.1:3101' },
      crm: { baseUrl: 'https://crm.example/api', pipelines: { listings: { pipelineId: '${PIPELINE}' } } },
      schedules: ['*/1 * * * *'],
      timeoutMs: 5000,
      enabled: true,
    });
    expect(unset).toEqual([{ path: 'crm.pipelines.listings.pipelineId', variable: 'PIPELINE' }]);
  });

  it('leaves text without references alone, a lone $ included', () => {
    expect(interpolateEnvironment({ a: 'costs $5 {x}' }, {}).value).toEqual({ a: 'costs $5 {x}' });
  });
});
