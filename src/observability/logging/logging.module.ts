import { Global, Module, type DynamicModule } from '@nestjs/common';
import { PinoLoggerService } from './pino-logger.service';
import { SecretRedactor } from './secret-redactor';

// The composition root (main.ts, cli.ts, tests) builds the redactor and logger before Nest starts,
// so that boot logs are redacted too, and hands them in here.
@Global()
@Module({})
export class LoggingModule {
  static forRoot(options: { redactor: SecretRedactor; logger: PinoLoggerService }): DynamicModule {
    return {
      module: LoggingModule,
      providers: [
        { provide: SecretRedactor, useValue: options.redactor },
        { provide: PinoLoggerService, useValue: options.logger },
      ],
      exports: [SecretRedactor, PinoLoggerService],
    };
  }
}
