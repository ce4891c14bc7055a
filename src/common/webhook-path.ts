// The webhook listener's routes; every other path belongs to the admin listener.
export function isWebhookPath(url: string | undefined): boolean {
  const path = (url ?? '').split('?')[0];
  return path === '/webhooks' || path.startsWith('/webhooks/');
}
