import type { DaemonSettings } from '../config/daemon-settings';

type Listeners = Pick<
  DaemonSettings,
  'adminHost' | 'adminPort' | 'webhookHost' | 'webhookPort' | 'ledgerPath'
>;

// A failure to start, told as one paragraph that names the setting to change, instead of a stack
// trace. Falls back to the error's own message (the stack only at LOG_LEVEL=debug, in main.ts).
export function describeStartupError(error: unknown, settings: Listeners | undefined): string {
  const e = (error instanceof Error ? error : new Error(String(error))) as NodeJS.ErrnoException & {
    port?: number;
    address?: string;
  };
  // Nest rethrows listen errors without their `port`; the message still ends in "host:port".
  const port = e.port ?? Number(/:(\d+)$/.exec(e.message)?.[1] ?? NaN);
  const listener = settings && which(settings, Number.isNaN(port) ? undefined : port);
  if (listener && e.code === 'EADDRINUSE')
    return `${listener.port} ${port} on ${listener.host} is already in use by another process. Stop that process or set ${listener.port} to a free port (and ${listener.hostName} if it should listen elsewhere).`;
  if (listener && e.code === 'EACCES')
    return `${listener.port} ${port} needs privileges this user does not have (ports below 1024 do). Set ${listener.port} to 1024 or above.`;
  if (e.code === 'EADDRNOTAVAIL' && settings)
    return `The address ${e.address ?? '?'} is not one of this machine's. Check ADMIN_HOST (${settings.adminHost}) and WEBHOOK_HOST (${settings.webhookHost}).`;
  if (
    /SQLITE_CANTOPEN|unable to open database/i.test(`${e.code ?? ''} ${e.message}`) ||
    isPathError(e, settings)
  )
    return `The ledger ${settings?.ledgerPath ?? ''} cannot be opened or created (${e.message}). Check LEDGER_PATH and that this user may write to its directory.`;
  return e.message;
}

function which(settings: Listeners, port: number | undefined) {
  if (port === undefined) return undefined;
  if (port === settings.adminPort)
    return { port: 'ADMIN_PORT', hostName: 'ADMIN_HOST', host: settings.adminHost };
  if (port === settings.webhookPort)
    return { port: 'WEBHOOK_PORT', hostName: 'WEBHOOK_HOST', host: settings.webhookHost };
  return undefined;
}

function isPathError(e: NodeJS.ErrnoException, settings: Listeners | undefined): boolean {
  return (
    settings !== undefined &&
    ['EACCES', 'EROFS', 'ENOTDIR', 'EISDIR'].includes(e.code ?? '') &&
    typeof e.path === 'string' &&
    e.path.startsWith(settings.ledgerPath.replace(/[^/]*$/, ''))
  );
}
