import type { NestExpressApplication } from '@nestjs/platform-express';
import type { AppParts } from './app.module';

// What an entry point adds around the daemon's start without the daemon knowing it (the embedded
// demo in src/app/embedded/ is one): each step runs in order, and a step that throws stops the start.
export interface DaemonExtension {
  // Before the Nest application is built: e.g. start the services the brokerages talk to.
  beforeCreate?(parts: AppParts): Promise<void>;
  // After the modules are built and before the listeners open and cron starts.
  beforeListen?(app: NestExpressApplication, parts: AppParts): Promise<void>;
  // Once both listeners are open ("listening on" is logged).
  afterListen?(app: NestExpressApplication, parts: AppParts): Promise<void>;
}
