export { withLogContext, currentLogContext, type LogContext } from './log-context';
export { SecretRedactor, REDACTED, isSensitiveKey } from './secret-redactor';
export { PinoLoggerService, createPino, type PinoLoggerOptions } from './pino-logger.service';
export { LoggingModule } from './logging.module';
