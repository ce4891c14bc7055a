// Small helpers over the HubSpot emulator's control API for the CRM tests.
export interface LoggedRequest {
  method: string;
  path: string;
  status: number;
}

export class EmulatorControl {
  constructor(private readonly url: string) {}

  async put(path: string, body: unknown): Promise<void> {
    const res = await fetch(`${this.url}/__control/${path}`, { method: 'PUT', body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`control ${path}: ${res.status} ${await res.text()}`);
  }

  async reset(): Promise<void> {
    await fetch(`${this.url}/__control/reset`, { method: 'POST' });
  }

  async seed(body: {
    type: string;
    count: number;
    properties: Record<string, string>;
    modifiedAt?: string;
    startIndex?: number;
    visibleAfterMs?: number;
  }): Promise<void> {
    const res = await fetch(`${this.url}/__control/seed`, { method: 'POST', body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`seed: ${res.status} ${await res.text()}`);
  }

  async requests(): Promise<LoggedRequest[]> {
    const res = await fetch(`${this.url}/__control/requests`);
    return ((await res.json()) as { requests: LoggedRequest[] }).requests;
  }

  async clearRequests(): Promise<void> {
    await fetch(`${this.url}/__control/requests`, { method: 'DELETE' });
  }
}
