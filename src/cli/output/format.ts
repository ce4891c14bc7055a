// Short human forms for dates, durations and state counts in CLI tables.
export function formatDate(date: Date | string | null | undefined): string {
  if (!date) return '-';
  return new Date(date)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d{3}Z$/, 'Z');
}

export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '-';
  if (ms < 1000) return `${ms}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes}m${String(Math.round((ms % 60_000) / 1000)).padStart(2, '0')}s`;
}

// "pending 2, dead 1" with zero states left out; "empty" when all are zero.
export function formatCounts(counts: Record<string, number>): string {
  const parts = Object.entries(counts)
    .filter(([, n]) => n > 0)
    .map(([state, n]) => `${state} ${n}`);
  return parts.length > 0 ? parts.join(', ') : 'empty';
}
