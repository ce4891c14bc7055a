// An expiry as the service or a CRM hands it over (ISO-8601 from the service; epoch ms as a CRM may
// store a date property): epoch ms, or null when absent or unreadable.
export function expiryMs(expires: string | null | undefined): number | null {
  if (expires === undefined || expires === null || expires === '') return null;
  const ms = /^\d{10,}$/.test(expires) ? Number(expires) : Date.parse(expires);
  return Number.isFinite(ms) ? ms : null;
}
