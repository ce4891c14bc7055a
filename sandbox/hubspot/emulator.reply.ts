// An answer whose status depends on the outcome (a batch's 207 when some inputs failed); a
// handler that always answers one status returns its body and declares the status with @HttpCode.
export class HubSpotReply {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {}
}
