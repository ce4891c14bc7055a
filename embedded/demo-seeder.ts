import { Logger } from '@nestjs/common';
import type { INestApplication } from '@nestjs/common';
import { CrmSetupService } from '../src/brokerages/crm-setup.service';
import type { LoadedBrokerage } from '../src/config/config.loader';
import type { Simulators } from '../sandbox/simulators';
import { FollowUpBossDemoAgent } from './fub-demo.agent';

type Properties = Record<string, string>;

// What a listing agent would have in HubSpot on day one: listing deals flagged "request cash offer"
// (one of them with a street name too long for the service, to show how a refused record looks).
const DEMO_LISTINGS: Properties[] = [
  {
    dealname: '12 Oak Street',
    amount: '425000',
    listing_street_number: '12',
    listing_street_name: 'Oak Street',
    listing_city: 'Austin',
    listing_state: 'TX',
    listing_postal_code: '78701',
    listing_bedrooms: '3',
    listing_year_built: '1994',
  },
  {
    dealname: '7 Birch Lane',
    amount: '310000',
    listing_street_number: '7',
    listing_street_name: 'Birch Lane',
    listing_city: 'Dallas',
    listing_state: 'TX',
    listing_postal_code: '75201',
    listing_bedrooms: '2',
    listing_year_built: '2005',
  },
  {
    dealname: '301 Cedar Avenue',
    amount: '560000',
    listing_street_number: '301',
    listing_street_name: 'Cedar Avenue',
    listing_city: 'Houston',
    listing_state: 'TX',
    listing_postal_code: '77002',
    listing_bedrooms: '4',
    listing_year_built: '2012',
  },
  {
    dealname: '5 Long Name Road',
    amount: '275000',
    listing_street_number: '5',
    listing_street_name: 'The Road Whose Name Is Far Too Long For The Service To Accept',
    listing_city: 'Austin',
    listing_state: 'TX',
    listing_postal_code: '78702',
  },
];
const OTHER_AGENTS_LISTINGS = 25;

const simulatedBrokerages = (brokerages: LoadedBrokerage[]): LoadedBrokerage[] =>
  brokerages.filter((b) => b.config.simulated === true && b.config.enabled !== false);

// The CRM schema of each simulated brokerage (setup-crm), made before the jobs are scheduled, so
// that their first runs find the pipelines and properties instead of failing for want of them.
export async function prepareDemoCrm(app: INestApplication, brokerages: LoadedBrokerage[]): Promise<void> {
  const logger = new Logger('Demo');
  for (const brokerage of simulatedBrokerages(brokerages)) {
    const report = await app.get(CrmSetupService).setup(brokerage.id);
    logger.log(
      `${brokerage.id}: setup-crm made ${report.items.filter((i) => i.outcome !== 'already present').length} schema item(s)`,
    );
  }
}

// Gives a fresh demo something to do, once its CRM schema is made (prepareDemoCrm): listing deals
// flagged for a cash offer, and other agents' requests in the marketplace.
export async function seedDemo(simulators: Simulators, brokerages: LoadedBrokerage[]): Promise<void> {
  const logger = new Logger('Demo');
  for (const brokerage of simulatedBrokerages(brokerages)) {
    if (brokerage.config.crm.kind === 'followupboss') {
      await seedFollowUpBoss(simulators);
      logger.log(
        `${brokerage.id}: ${DEMO_LISTINGS.length} listing deals flagged "request cash offer" in the Follow Up Boss emulator`,
      );
      continue;
    }
    const hubspot = new EmulatorAgent(simulators.hubspot.url, simulators.hubspot.token);
    for (const [i, listing] of DEMO_LISTINGS.entries()) {
      const contactId = await hubspot.create('contacts', {
        firstname: 'Pat',
        lastname: `Seller ${i + 1}`,
        email: `seller${i + 1}@demo.example`,
      });
      const dealId = await hubspot.create('deals', {
        pipeline: brokerage.config.crm.pipelines.listings.pipelineId,
        dealstage: 'appointmentscheduled',
        listing_mls_status: 'Active',
        listing_agent_first_name: 'Dana',
        listing_agent_last_name: 'Reyes',
        listing_agent_email: 'dana@demo-realty.example',
        cash_offer_request_trigger: 'true',
        ...listing,
      });
      await hubspot.associate(dealId, contactId);
    }
    logger.log(
      `${brokerage.id}: ${DEMO_LISTINGS.length} listing deals flagged "request cash offer" in the HubSpot emulator`,
    );
  }
  await fetch(`${simulators.cashOffer.controlUrl}/seed-active`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ count: OTHER_AGENTS_LISTINGS, ownerKey: 'sandbox-partner-key' }),
  });
  logger.log(`${OTHER_AGENTS_LISTINGS} other agents' requests are active in the marketplace`);
}

// The same listings, as a FUB agent keeps them: the deal's name and price are FUB's own fields.
async function seedFollowUpBoss(simulators: Simulators): Promise<void> {
  if (!simulators.followUpBoss) throw new Error('demo seeding: the Follow Up Boss emulator is not running');
  const fub = new FollowUpBossDemoAgent(simulators.followUpBoss);
  for (const [i, listing] of DEMO_LISTINGS.entries()) {
    const { dealname, amount, ...fields } = listing;
    await fub.listing(
      { firstName: 'Sam', lastName: `Seller ${i + 1}`, email: `fub-seller${i + 1}@demo.example` },
      {
        name: dealname,
        price: Number(amount),
        stageName: 'Listing Appointment',
        fields: {
          listing_mls_status: 'Active',
          listing_agent_first_name: 'Dana',
          listing_agent_last_name: 'Reyes',
          listing_agent_email: 'dana@demo-realty.example',
          cash_offer_request_trigger: 'true',
          ...fields,
        },
      },
    );
  }
}

// Acts in the emulator as an agent would in HubSpot, over its REST API.
class EmulatorAgent {
  constructor(
    private readonly url: string,
    private readonly token: string,
  ) {}

  async create(type: 'deals' | 'contacts', properties: Properties): Promise<string> {
    const body = (await this.call('POST', `/crm/v3/objects/${type}`, { properties })) as { id: string };
    return body.id;
  }

  async associate(dealId: string, contactId: string): Promise<void> {
    await this.call('PUT', `/crm/v4/objects/deals/${dealId}/associations/default/contacts/${contactId}`);
  }

  private async call(method: string, path: string, body?: unknown): Promise<unknown> {
    const res = await fetch(`${this.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${this.token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok)
      throw new Error(`demo seeding: ${method} ${path} answered ${res.status}: ${await res.text()}`);
    return res.json();
  }
}
