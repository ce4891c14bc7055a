// An expiry as the service or a CRM hands it over (ISO-8601 from the service; epoch ms as a CRM may
// store a date property): epoch ms, or null when absent or unreadable.
export function expiryMs(expires: string | null | undefined): number | null {
  if (expires === undefined || expires === null || expires === '') return null;
  const ms = /^\d{10,}$/.test(expires) ? Number(expires) : Date.parse(expires);
  return Number.isFinite(ms) ? ms : null;
}

// Whether an expiry (epoch ms; null or undefined: none) had come by a moment (undefined: not known).
export function ranOutBy(expiresMs: number | null | undefined, atMs: number | undefined): boolean {
  return typeof expiresMs === 'number' && atMs !== undefined && expiresMs <= atMs;
}
