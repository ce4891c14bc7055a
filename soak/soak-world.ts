import { OFFERS_PIPELINE_LABEL, STAGE_LABELS, type CrmObject, type SoakCrm, type StageKey } from './soak-crm';
import { NEAR_CLOCK_MS, type SoakTask } from './soak-clocks';
import type { SoakRandom } from './soak-random';
import type { SoakService, StoredCounter, StoredOffer } from './soak-service';

// The world around the daemon, acting only through HTTP: a listing agent working in the CRM (its
// public API, as any client of that CRM, soak-crm.ts); the service's buyers are in soak-service.ts.

export type { CrmObject, StageKey } from './soak-crm';

export type DecisionKind = 'accept' | 'reject' | 'counter';
export const REQUESTED_STAGE: Record<DecisionKind, StageKey> = {
  accept: 'acceptRequested',
  reject: 'rejectRequested',
  counter: 'counterRequested',
};

export interface Listing {
  dealId: string;
  contactId: string;
  // accept: once all its offers show, accept one (and sometimes reject another at the same moment);
  // single: decide each offer on its own (reject, counter or leave it).
  plan: 'accept' | 'single';
  plannedOffers: number;
  triggered: boolean;
  acceptDone: boolean;
  // The listing agent as the agent last set it on the deal (at creation, then each edit), and the
  // values it had before (an edit may set one of them again).
  listAgent: ListAgent;
  earlierListAgents: ListAgent[];
}

export interface ListAgent {
  firstName: string;
  email: string;
}

export interface Decision {
  kind: DecisionKind;
  offerId: string;
  recordId: string;
  requestId: string;
  dealId: string;
  at: number;
  // A counter's "Counter expires", when the agent set one (epoch ms).
  counterExpiresMs?: number;
}

// The agent never decides an offer this close to its expiry: the decision might reach the service
// after the offer ran out and be refused, the decision tests' subject, not this soak's.
const AGENT_CUTOFF_MS = 60_000;
// How long the agent may leave a record of an offer on a near clock before looking at it.
const LOOK_LATER_MS = 40_000;

// Who the agent hands a listing to when it edits the listing agent (soak-world.ts, editListAgent).
const LIST_AGENTS = ['Robin', 'Kai', 'Noa', 'Lee'];
const FIRST_LIST_AGENT: ListAgent = { firstName: 'Dana', email: 'dana@acme-realty.example' };

const STREETS = ['Oak Street', 'Elm Avenue', 'Cedar Lane', 'Maple Drive', 'Pine Court', 'Birch Road'];

// The share of the agent's counters given an expiry within the run.
const COUNTER_EXPIRY_SHARE = 0.4;

export class SoakWorld {
  readonly listings = new Map<string, Listing>();
  readonly decisions: Decision[] = [];
  offersPipelineId = '';
  readonly stageIds = {} as Record<StageKey, string>;
  private readonly seenRecords = new Set<string>();
  // Countered records the agent has had second thoughts about once (soak-world.ts, reconsider).
  private readonly reconsidered = new Set<string>();
  // Countered records the agent accepted on second thoughts, until the service's refusal of that
  // accept shows on them (the agent then turns the offer down) or it is carried out.
  private readonly acceptsAwaited = new Set<string>();
  // The agent edits listing agents only while the kills go on: an edit during the settle would keep
  // the CRM changing (the settle waits for it to be still) and be judged before it could sync.
  editsListAgents = true;
  // When the agent first looks at a record of an offer on a near clock (soak-clocks.ts).
  private readonly lookAt = new Map<string, number>();

  constructor(
    private readonly crm: SoakCrm,
    private readonly agentRandom: SoakRandom,
    readonly service: SoakService,
    readonly targetDeals: number,
    // The agent's delays on offers with a near clock: a PRNG of its own, so the rest of the plan is
    // what it was before the clocks.
    private readonly lookRandom: SoakRandom,
    // The agent's listing-agent edits: a PRNG of its own too, for the same reason.
    private readonly editRandom?: SoakRandom,
    // The agent's second thoughts on its counters (turning down an offer whose counter still waits):
    // a PRNG of its own too.
    private readonly secondThoughts?: SoakRandom,
    // Whether, and when, the agent's counters run out ("Counter expires"): a PRNG of its own too.
    private readonly counterExpiries?: SoakRandom,
  ) {}

  // After setup-crm: the agent finds the offer-record pipeline and its stages by label, as a person would.
  async loadStages(): Promise<void> {
    const pipeline = (await this.crm.pipelines()).find((p) => p.label === OFFERS_PIPELINE_LABEL);
    if (!pipeline) throw new Error(`no "${OFFERS_PIPELINE_LABEL}" pipeline: did setup-crm run?`);
    this.offersPipelineId = pipeline.id;
    for (const [key, label] of Object.entries(STAGE_LABELS) as [StageKey, string][]) {
      const stage = pipeline.stages.find((s) => s.label === label);
      if (!stage) throw new Error(`no "${label}" stage in "${OFFERS_PIPELINE_LABEL}"`);
      this.stageIds[key] = stage.id;
    }
  }

  stageKeyOf(stageId: string | null | undefined): string {
    const found = (Object.keys(this.stageIds) as StageKey[]).find((k) => this.stageIds[k] === stageId);
    return found ?? String(stageId);
  }

  get allCreated(): boolean {
    return [...this.listings.values()].filter((l) => l.triggered).length >= this.targetDeals;
  }

  // One step of the agent: create and trigger listing deals (up to `allowed` so far), then decide offers.
  async agentTick(allowed: number): Promise<void> {
    for (const listing of this.listings.values()) if (!listing.triggered) await this.trigger(listing);
    if (this.listings.size < Math.min(allowed, this.targetDeals) && this.agentRandom.chance(0.4)) {
      // Deals come in small batches (an agent's afternoon of listings), so several creates meet in
      // one outbox drain and wait on the service's rate limit together.
      const burst = Math.min(this.agentRandom.int(1, 5), this.targetDeals - this.listings.size);
      const created: Listing[] = [];
      for (let i = 0; i < burst; i++) created.push(await this.createListing());
      for (const listing of created) if (this.agentRandom.chance(0.8)) await this.trigger(listing);
    }
    await this.decide();
    if (this.editsListAgents && this.editRandom?.chance(0.03)) await this.editListAgent(this.editRandom);
  }

  // The agent hands a triggered listing to another agent of the office, or back to one it had
  // (the service must end holding the deal's last edit, whatever the kills cut: soak-checks.ts).
  private async editListAgent(r: SoakRandom): Promise<void> {
    const triggered = [...this.listings.values()].filter((l) => l.triggered);
    if (triggered.length === 0) return;
    const listing = r.pick(triggered);
    const next =
      listing.earlierListAgents.length > 0 && r.chance(0.3)
        ? r.pick(listing.earlierListAgents)
        : (() => {
            const firstName = r.pick(LIST_AGENTS);
            return { firstName, email: `${firstName.toLowerCase()}.${r.int(1, 99)}@acme-realty.example` };
          })();
    if (next.email === listing.listAgent.email) return;
    await this.crm.editListing(listing.dealId, {
      listing_agent_first_name: next.firstName,
      listing_agent_email: next.email,
    });
    listing.earlierListAgents.push(listing.listAgent);
    listing.listAgent = next;
  }

  private async createListing(): Promise<Listing> {
    const r = this.agentRandom;
    const n = this.listings.size + 1;
    const { dealId: deal, contactId: contact } = await this.crm.createListing(n, {
      amount: String(r.int(250, 700) * 1000),
      listing_street_number: String(r.int(1, 9999)),
      listing_street_name: r.pick(STREETS),
      listing_city: 'Austin',
      listing_state: 'TX',
      listing_postal_code: '78701',
      listing_mls_status: 'Active',
      listing_bedrooms: String(r.int(2, 5)),
      listing_year_built: String(r.int(1950, 2020)),
      // Not drawn (the seed's plan stays as it was): there for a service that requires them
      // (`createRequiredFields: listing-facts`).
      listing_bathrooms_full: '2',
      listing_living_area: String(1200 + 50 * (n % 20)),
      listing_agent_first_name: FIRST_LIST_AGENT.firstName,
      listing_agent_last_name: 'Reyes',
      listing_agent_email: FIRST_LIST_AGENT.email,
    });
    const listing: Listing = {
      dealId: deal,
      contactId: contact,
      plan: r.chance(0.3) ? 'accept' : 'single',
      plannedOffers: r.int(1, 3),
      triggered: false,
      acceptDone: false,
      listAgent: FIRST_LIST_AGENT,
      earlierListAgents: [],
    };
    if (listing.plan === 'accept') listing.plannedOffers = Math.max(2, listing.plannedOffers);
    this.listings.set(deal, listing);
    return listing;
  }

  private async trigger(listing: Listing): Promise<void> {
    await this.crm.trigger(listing.dealId);
    listing.triggered = true;
  }

  // Whether a decision of the agent on an offer of this request has not reached the service yet.
  pendingIn(requestId: string, offers: StoredOffer[], counters: StoredCounter[]): boolean {
    const statusOf = new Map(offers.map((o) => [String(o.offer_id), o.offer_status]));
    const countered = new Set(counters.map((c) => String(c.offer_id)));
    return this.decisions.some(
      (d) =>
        d.requestId === requestId &&
        (d.kind === 'counter'
          ? !countered.has(d.offerId)
          : statusOf.get(d.offerId) !== (d.kind === 'accept' ? 'accepted' : 'rejected')),
    );
  }

  private async decide(): Promise<void> {
    const requests = await this.service.requests();
    // The agent decides only offers the service still lists active: a record the daemon has not
    // yet updated after a buyer's answer would draw a refused decision, which is not this soak's subject.
    const serviceOffers = await this.service.offers();
    const serviceStatus = new Map(serviceOffers.map((f) => [String(f.offer_id), f.offer_status]));
    const expiresOf = new Map(
      serviceOffers.map((f) => [String(f.offer_id), Date.parse(f.offer_expires ?? '')]),
    );
    const now = Date.now();
    const runningOut = (o: CrmObject): boolean =>
      (expiresOf.get(String(o.properties.cash_offer_offer_id)) ?? Infinity) - now < AGENT_CUTOFF_MS;
    const dealOfRequest = new Map(
      requests.map((q) => [String(q.offer_request_id), String(q.offer_request_external_id)]),
    );
    const records = (await this.crm.offerRecords()).filter(
      (o) => o.properties.pipeline === this.offersPipelineId && o.properties.cash_offer_offer_id,
    );
    const byRequest = new Map<string, CrmObject[]>();
    for (const o of records) {
      const ref = String(o.properties.cash_offer_offer_request_ref);
      byRequest.set(ref, [...(byRequest.get(ref) ?? []), o]);
    }
    const open = (o: CrmObject): boolean =>
      o.properties.dealstage === this.stageIds.incoming &&
      o.properties.cash_offer_offer_status === 'active' &&
      serviceStatus.get(String(o.properties.cash_offer_offer_id)) === 'active';
    for (const [requestId, offers] of byRequest) {
      const listing = this.listings.get(dealOfRequest.get(requestId) ?? '');
      if (!listing) continue;
      if (listing.plan === 'accept') {
        if (listing.acceptDone || offers.length < listing.plannedOffers || !offers.every(open)) continue;
        if (offers.some(runningOut)) continue;
        const chosen = this.agentRandom.pick(offers);
        await this.move(chosen, 'accept', listing, requestId);
        const others = offers.filter((o) => o !== chosen);
        // A race the ledger must survive: another offer of the same request rejected at the same moment.
        if (others.length > 0 && this.agentRandom.chance(0.5))
          await this.move(this.agentRandom.pick(others), 'reject', listing, requestId);
        listing.acceptDone = true;
        continue;
      }
      // An offer accepted on second thoughts: the agent decides no other offer on its request.
      if (listing.acceptDone) continue;
      for (const o of offers) {
        if (this.seenRecords.has(o.id) || !open(o)) continue;
        const expires = expiresOf.get(String(o.properties.cash_offer_offer_id)) ?? Infinity;
        if (expires - now < NEAR_CLOCK_MS) {
          // A near clock: looked at after a while, so its tasks come and close under the kills;
          // not at all once it is about to run out (left alone, it runs out).
          if (runningOut(o)) {
            this.seenRecords.add(o.id);
            continue;
          }
          if (!this.lookAt.has(o.id)) this.lookAt.set(o.id, now + this.lookRandom.between(0, LOOK_LATER_MS));
          if (now < this.lookAt.get(o.id)!) continue;
        }
        this.seenRecords.add(o.id);
        const roll = this.agentRandom.next();
        if (roll < 0.35) await this.move(o, 'reject', listing, requestId);
        else if (roll < 0.7) await this.move(o, 'counter', listing, requestId);
      }
    }
    if (this.secondThoughts) await this.reconsider(this.secondThoughts, records, dealOfRequest, runningOut);
  }

  // The agent has second thoughts, once in a while, on an offer whose counter still waits on its
  // buyer: it turns the offer down (docs/crm-mapping.md: the seller may reject it whatever the
  // service lists it as meanwhile, and the reject ends the counter), or accepts the buyer's own offer
  // after all, which the service may take (the cascade ends the counter) or refuse (whether it may is
  // not shown). A refused accept shows on the record, back in Countered with the service's reason:
  // the agent then turns the offer down, a second move on the same record. Only a record that shows
  // the counter sent (Countered) and whose counter the service holds pending, and an accept only where
  // no other move of the agent's on the request shows under way.
  private async reconsider(
    r: SoakRandom,
    records: CrmObject[],
    dealOfRequest: ReadonlyMap<string, string>,
    runningOut: (o: CrmObject) => boolean,
  ): Promise<void> {
    const listingOf = (o: CrmObject) => {
      const requestId = String(o.properties.cash_offer_offer_request_ref);
      return { requestId, listing: this.listings.get(dealOfRequest.get(requestId) ?? '') };
    };
    await this.rejectRefusedAccepts(records, runningOut, listingOf);
    const countered = records.filter(
      (o) => o.properties.dealstage === this.stageIds.countered && !this.reconsidered.has(o.id),
    );
    if (countered.length === 0) return;
    const counters = await this.service.counters();
    const waiting = new Set(
      counters.filter((c) => c.counter_offer_status === 'pending').map((c) => String(c.offer_id)),
    );
    for (const o of countered) {
      const offerId = String(o.properties.cash_offer_offer_id);
      if (!waiting.has(offerId) || runningOut(o)) continue;
      this.reconsidered.add(o.id);
      if (!r.chance(0.4)) continue;
      const { requestId, listing } = listingOf(o);
      if (!listing) continue;
      const accepts = r.chance(0.5) && !listing.acceptDone && !this.movesUnderWay(records, requestId);
      if (!accepts) {
        await this.move(o, 'reject', listing, requestId);
        continue;
      }
      await this.move(o, 'accept', listing, requestId);
      listing.acceptDone = true;
      this.acceptsAwaited.add(o.id);
    }
  }

  // Whether a record of the request still shows one of the agent's moves under way (a "… requested"
  // stage), as the agent sees it in the CRM.
  private movesUnderWay(records: CrmObject[], requestId: string): boolean {
    const requested = new Set(Object.values(REQUESTED_STAGE).map((key) => this.stageIds[key]));
    return records.some(
      (o) =>
        String(o.properties.cash_offer_offer_request_ref) === requestId &&
        requested.has(String(o.properties.dealstage)),
    );
  }

  // A second-thoughts accept the service refused shows back in Countered with its reason: the agent
  // turns the offer down instead. Carried out (Accepted), nothing is left to do.
  private async rejectRefusedAccepts(
    records: CrmObject[],
    runningOut: (o: CrmObject) => boolean,
    listingOf: (o: CrmObject) => { requestId: string; listing: Listing | undefined },
  ): Promise<void> {
    for (const o of records) {
      if (!this.acceptsAwaited.has(o.id)) continue;
      const stage = o.properties.dealstage;
      if (stage === this.stageIds.acceptRequested) continue;
      this.acceptsAwaited.delete(o.id);
      const refused =
        stage === this.stageIds.countered && (o.properties.cash_offer_decision_error ?? '').trim() !== '';
      const { requestId, listing } = listingOf(o);
      if (refused && listing && !runningOut(o)) await this.move(o, 'reject', listing, requestId);
    }
  }

  private async move(
    record: CrmObject,
    kind: DecisionKind,
    listing: Listing,
    requestId: string,
  ): Promise<void> {
    const counter: Record<string, string> =
      kind === 'counter'
        ? {
            cash_offer_counter_amount: String(
              Math.round(Number(record.properties.cash_offer_offer_amount) * 1.05),
            ),
            cash_offer_counter_memo: 'Soak counter: a little more, please',
            ...this.counterExpiry(),
          }
        : {};
    await this.crm.move(record.id, this.offersPipelineId, this.stageIds[REQUESTED_STAGE[kind]], counter);
    const expires = counter.cash_offer_counter_expires;
    this.decisions.push({
      kind,
      offerId: String(record.properties.cash_offer_offer_id),
      recordId: record.id,
      requestId,
      dealId: listing.dealId,
      at: Date.now(),
      ...(expires !== undefined ? { counterExpiresMs: Date.parse(expires) } : {}),
    });
  }

  // Some counters run out within the run (25-90 s): their clocks remind the agent, and a service that
  // lets counters lapse (spec reading counterLapse) ends them unanswered.
  private counterExpiry(): Record<string, string> {
    const r = this.counterExpiries;
    if (!r?.chance(COUNTER_EXPIRY_SHARE)) return {};
    return {
      cash_offer_counter_expires: new Date(Date.now() + Math.round(r.between(25_000, 90_000))).toISOString(),
    };
  }

  // Every deal in the CRM, through the emulator's read-only control view (not rate limited).
  crmWriteHistory(): Promise<unknown> {
    return this.crm.writeHistory();
  }

  crmDeals(): Promise<CrmObject[]> {
    return this.crm.allDeals();
  }

  // Every task in the CRM, through the same control view.
  crmTasks(): Promise<SoakTask[]> {
    return this.crm.allTasks();
  }
}
