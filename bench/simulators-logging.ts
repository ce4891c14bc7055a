import { Logger } from '@nestjs/common';
import { SimulatorsLogger } from '../sandbox/simulators.logger';

// The benches start the simulators, Nest applications, in their own process; without this, Nest's
// default logger prints every mapped route of each start among the figures. Imported for its effect.
Logger.overrideLogger(new SimulatorsLogger());
