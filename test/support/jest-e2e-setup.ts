import { Logger } from '@nestjs/common';
import { SimulatorsLogger } from '../../sandbox/simulators.logger';

// The simulators run as Nest applications inside the test process, and Nest's default logger prints
// every mapped route of each one: hundreds of lines per suite that hide what failed. This keeps
// their own lines, warnings and errors; a daemon a test starts installs its own logger (pino).
Logger.overrideLogger(new SimulatorsLogger());
