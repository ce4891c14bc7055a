import { ConsoleLogger } from '@nestjs/common';

// Nest's start-up chatter (every module, route and mapping of each simulator's application).
const NEST_FRAMEWORK_CONTEXTS = new Set([
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'NestFactory',
  'NestApplication',
]);

// The console logger of `npm run sandbox`: the simulators' own lines, errors and warnings, without
// Nest's start-up chatter. Only that entry installs it: Nest's logger is the whole process's, so
// in the embedded demo the simulators log through the daemon's pino, which drops the same chatter.
export class SimulatorsLogger extends ConsoleLogger {
  override log(message: unknown, ...optionalParams: unknown[]): void {
    const context = optionalParams[optionalParams.length - 1];
    if (typeof context === 'string' && NEST_FRAMEWORK_CONTEXTS.has(context)) return;
    super.log(message, ...optionalParams);
  }
}
