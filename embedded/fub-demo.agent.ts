import { fubFieldName } from '../src/crm/followupboss/followupboss-field-names';
import type { FollowUpBossEmulator } from '../sandbox/followupboss';

// Acts in the Follow Up Boss emulator as an agent would in FUB, over its REST API: a seller person
// and a listing deal in the Sellers pipeline with them on it. Listing fields are named as the
// daemon's mapping names them (listing_*), which FUB keeps as customListing... fields.
export class FollowUpBossDemoAgent {
  constructor(private readonly fub: FollowUpBossEmulator) {}

  async listing(
    seller: { firstName: string; lastName: string; email: string },
    deal: { name: string; price: number; stageName: string; fields: Record<string, string> },
  ): Promise<void> {
    const person = (await this.call('/people', {
      firstName: seller.firstName,
      lastName: seller.lastName,
      emails: [{ value: seller.email }],
    })) as { id: number };
    const sellers = this.fub.state.pipelines().find((p) => p.name === 'Sellers');
    const stage = sellers?.stages.find((s) => s.name === deal.stageName);
    if (!stage) throw new Error(`demo seeding: the FUB emulator has no Sellers stage "${deal.stageName}"`);
    const custom = Object.fromEntries(
      Object.entries(deal.fields).map(([k, v]) => [fubFieldName(k), numeric(v)]),
    );
    await this.call('/deals', {
      name: deal.name,
      price: deal.price,
      stageId: stage.id,
      peopleIds: [person.id],
      ...custom,
    });
  }

  private async call(path: string, body: unknown): Promise<unknown> {
    const res = await fetch(`${this.fub.url}/v1${path}`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${this.fub.apiKey}:`).toString('base64')}`,
        'content-type': 'application/json',
        'X-System': this.fub.system,
        'X-System-Key': this.fub.systemKey,
      },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`demo seeding: POST ${path} answered ${res.status}: ${await res.text()}`);
    return res.json();
  }
}

// FUB number fields take JSON numbers; the emulator accepts numeric text too, but a client sends numbers.
function numeric(value: string): string | number {
  return /^\d+(\.\d+)?$/.test(value) && !value.startsWith('0') ? Number(value) : value;
}
