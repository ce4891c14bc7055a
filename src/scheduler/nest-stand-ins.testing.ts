// Stand-ins for the scheduler's unit specs, used from their jest.mock factories: the classes under test
// only need Nest's decorators to be inert, a silent Logger, and DiscoveryService.createDecorator
// (JobRegistry reads @SyncJob through it; the specs register handlers by hand). The rest of
// @nestjs/common (`actual`, from jest.requireActual) stays real, for whatever else the specs reach.
// Built with the daemon, so it names no jest global itself.
export function nestCommonStandIn(actual: Record<string, unknown>): Record<string, unknown> {
  return {
    ...actual,
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
