import type { LoggerService, LogLevel as NestLogLevel } from '@nestjs/common';
import pino, { type DestinationStream, type Logger as Pino, type Level } from 'pino';
import pretty from 'pino-pretty';
import { currentLogContext } from './log-context';
import { REDACTED, SENSITIVE_KEYS, SecretRedactor } from './secret-redactor';

export interface PinoLoggerOptions {
  level: string;
  redactor: SecretRedactor;
  // Defaults to stdout; the CLI logs to stderr (fd 2) so its stdout stays clean for --json.
  destination?: DestinationStream | number;
}

const NEST_TO_PINO: Record<NestLogLevel, Level> = {
  log: 'info',
  error: 'error',
  warn: 'warn',
  debug: 'debug',
  verbose: 'trace',
  fatal: 'fatal',
};

// Paths pino censors structurally, on top of the value scrubbing of every written line.
function redactPaths(): string[] {
  const keys = [...SENSITIVE_KEYS, 'apiKey', 'accessToken', 'Authorization', 'webhookSecret', 'crmToken'];
  const quoted = keys.map((k) => (/^[A-Za-z_$][\w$]*$/.test(k) ? k : `["${k}"]`));
  const join = (prefix: string, k: string): string =>
    k.startsWith('[') ? `${prefix}${k}` : `${prefix}.${k}`;
  return [...quoted, ...quoted.map((k) => join('*', k)), ...quoted.map((k) => join('*.headers', k))];
}

// Nest's own start-up chatter (every module, route and mapping): worth a look only when debugging.
const NEST_FRAMEWORK_CONTEXTS = new Set([
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'NestFactory',
  'NestApplication',
]);

// A person at a terminal gets coloured one-line entries; a pipe, a file or a log shipper gets JSON.
function destinationFor(option: PinoLoggerOptions['destination']): DestinationStream {
  if (typeof option === 'object') return option;
  const fd = option ?? 1;
  const tty = (fd === 1 ? process.stdout : fd === 2 ? process.stderr : undefined)?.isTTY === true;
  if (tty)
    return pretty({
      destination: fd,
      sync: true,
      colorize: true,
      translateTime: 'SYS:HH:MM:ss',
      ignore: 'pid,hostname,context,brokerageId,job',
      messageFormat:
        '{if context}[{context}] {end}{if brokerageId}{brokerageId} {end}{if job}{job} {end}{msg}',
      hideObject: false,
    });
  return pino.destination({ fd, sync: true });
}

export function createPino(options: PinoLoggerOptions): Pino {
  const destination = destinationFor(options.destination);
  return pino(
    {
      level: options.level,
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      // brokerageId, job and runId of the current async context, on every line.
      mixin: () => ({ ...currentLogContext() }),
      redact: { paths: redactPaths(), censor: REDACTED },
      hooks: { streamWrite: (line: string) => options.redactor.redact(line) },
    },
    destination,
  );
}

// Nest's LoggerService over pino, so `new Logger(ctx)` anywhere in the app lands in pino.
export class PinoLoggerService implements LoggerService {
  readonly pino: Pino;

  constructor(private readonly options: PinoLoggerOptions) {
    this.pino = createPino(options);
  }

  log(message: unknown, ...params: unknown[]): void {
    this.write('log', message, params);
  }
  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params);
  }
  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }
  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }
  verbose(message: unknown, ...params: unknown[]): void {
    this.write('verbose', message, params);
  }
  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }

  setLogLevels(): void {
    // The level comes from LOG_LEVEL; Nest's per-level toggles are not used.
  }

  private write(level: NestLogLevel, message: unknown, params: unknown[]): void {
    const rest = [...params];
    // Nest appends the Logger's context as the last string argument.
    const context =
      rest.length > 0 && typeof rest[rest.length - 1] === 'string' ? (rest.pop() as string) : undefined;
    const pinoLevel =
      level === 'log' && context !== undefined && NEST_FRAMEWORK_CONTEXTS.has(context)
        ? 'debug'
        : NEST_TO_PINO[level];
    if (!this.pino.isLevelEnabled(pinoLevel)) return;
    const fields: Record<string, unknown> = {};
    if (context) fields.context = context;
    let text: string | undefined;
    if (message instanceof Error) {
      fields.err = { type: message.name, message: message.message, stack: message.stack };
      text = message.message;
    } else if (typeof message === 'object' && message !== null) {
      const object = this.options.redactor.redactValue(message) as Record<string, unknown>;
      Object.assign(fields, object);
      text =
        typeof object.message === 'string'
          ? object.message
          : typeof object.msg === 'string'
            ? object.msg
            : undefined;
    } else {
      text = String(message);
    }
    const details: unknown[] = [];
    for (const param of rest) {
      if (level === 'error' && typeof param === 'string' && param.includes('\n    at ')) fields.stack = param;
      else if (param instanceof Error)
        fields.err = { type: param.name, message: param.message, stack: param.stack };
      else if (param !== undefined) details.push(this.options.redactor.redactValue(param));
    }
    if (details.length > 0) fields.details = details;
    this.pino[pinoLevel](fields, text);
  }
}
