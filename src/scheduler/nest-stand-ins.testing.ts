// Stand-ins for the scheduler's unit specs, used from their jest.mock factories: the classes under test
// only need Nest's decorators to be inert, a silent Logger, and DiscoveryService.createDecorator
// (JobRegistry reads @SyncJob through it; the specs register handlers by hand). The rest of
// @nestjs/common stays real: the wire classes the config reaches load @nestjs/swagger.
export function nestCommonStandIn(): Record<string, unknown> {
  return {
    ...jest.requireActual<Record<string, unknown>>('@nestjs/common'),
    Injectable: () => () => undefined,
    Inject: () => () => undefined,
    Optional: () => () => undefined,
    Logger: class {
      log(): void {}
      debug(): void {}
      warn(): void {}
      error(): void {}
    },
  };
}

export function nestCoreStandIn(): Record<string, unknown> {
  return {
    DiscoveryService: { createDecorator: () => Object.assign(() => () => undefined, { KEY: 'sync-job' }) },
  };
}
