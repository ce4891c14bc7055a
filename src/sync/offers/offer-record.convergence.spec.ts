import type { Offer } from '../../cash-offer/schema';
import { classifyLink, type LinkVersion } from '../../ledger/repositories/link-order';
import { counterVerdict } from '../decisions/counter-offer.executor';
import { habitOf } from './counter-listing-habit';
import type { OfferStage } from './offer-record.properties';
import { isAnsweredCounter, learnCounter, offerRecordView, type CounterKnowledge } from './offer-record.view';

// Convergence as a property: whatever the interleaving of offers, decisions, counters, buyers'
// answers, lost answers, lost and stale events and reconciles, one reconcile at the end brings
// every record to what the service's state says. Run under each reading of the spec's open
// questions about counters (docs/spec-decisions.md).

type ListedAs = 'countered' | 'active' | 'rejected';
interface Reading {
  listedAs: ListedAs;
  answerHasId: boolean;
  pendingWord: string;
  updateDelivered: boolean; // false: the service sends no UPDATE (or every one is lost)
  // false: the offer a buyer makes by accepting a counter does not name it (the spec's offer has
  // no counter_offer_id field).
  offerNamesCounter?: boolean;
  // What the countered offer becomes when its buyer rejects the counter (not shown): rejected
  // (default), active again (the seller may still decide it), or still countered.
  afterRefusal?: 'rejected' | 'active' | 'countered';
  // false: offer_is_counter_offer is null on every offer ("boolean, nullable"), the accepting one too.
  counterOfferFlag?: boolean;
}

interface TrueOffer {
  id: number;
  status: string;
  isCounterOffer: boolean;
  counterOfferId?: number;
  amount: number;
  // Our counter on this offer, as the service holds it.
  counter?: { id: number; status: CounterStatus };
}

// `withdrawn`: the buyer took the countered offer back before answering.
type CounterStatus = 'pending' | 'accepted' | 'rejected' | 'withdrawn';

function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class World {
  readonly offers: TrueOffer[] = [];
  // The daemon's ledger: what it knows of each counter, by countered offer id.
  readonly ledger = new Map<number, CounterKnowledge>();
  // Counter commands whose answer was lost (outcome unknown), looked for at every reconcile.
  readonly unknown = new Set<number>();
  readonly undecidable = new Set<number>();
  private readonly updates = new Set<number>();
  private nextId = 1;
  private nextCounterId = 900;

  constructor(
    private readonly reading: Reading,
    private readonly random: () => number,
  ) {}

  private get closed(): boolean {
    return this.offers.some((o) => o.status === 'accepted');
  }

  // What GET /offers shows, under the reading.
  listing(): Offer[] {
    return this.offers.map(
      (o) =>
        ({
          offer_id: o.id,
          offer_request_id: 7,
          offer_amount: o.amount,
          offer_status: o.status === 'countered' ? this.reading.listedAs : o.status,
          offer_is_counter_offer: this.reading.counterOfferFlag === false ? null : o.isCounterOffer,
          counter_offer_id: this.reading.offerNamesCounter === false ? undefined : (o.counterOfferId ?? null),
        }) as Offer,
    );
  }

  private pick<T>(items: T[]): T | undefined {
    return items.length === 0 ? undefined : items[Math.floor(this.random() * items.length)];
  }

  step(): void {
    const roll = this.random();
    const active = this.offers.filter((o) => o.status === 'active');
    const pending = this.offers.filter((o) => o.counter?.status === 'pending');
    if (roll < 0.25 && !this.closed) this.newOffer();
    // One counter per offer (the daemon's command key): an offer back to active is only decided.
    else if (roll < 0.4 && !this.closed) this.counter(this.pick(active.filter((o) => !o.counter)));
    else if (roll < 0.5 && !this.closed) this.decide(this.pick(active), 'accepted');
    else if (roll < 0.58) this.decide(this.pick(active), 'rejected');
    else if (roll < 0.7) this.buyerAnswers(this.pick(pending), 'accepted');
    else if (roll < 0.82) this.buyerAnswers(this.pick(pending), 'rejected');
    else if (roll < 0.86)
      this.withdraw(this.pick(this.offers.filter((o) => o.status === 'active' || o.status === 'countered')));
    else this.reconcile();
  }

  // The buyer takes an undecided offer back (the control API's withdraw): a counter waiting on it
  // ends with it. No event tells; the listing shows the offer `withdrawn`.
  private withdraw(offer: TrueOffer | undefined): void {
    if (!offer) return;
    offer.status = 'withdrawn';
    if (offer.counter?.status === 'pending') offer.counter.status = 'withdrawn';
  }

  private newOffer(): void {
    this.offers.push({
      id: this.nextId,
      status: 'active',
      isCounterOffer: false,
      amount: 100_000 + this.nextId++,
    });
  }

  private counter(offer: TrueOffer | undefined): void {
    if (!offer) return;
    offer.status = 'countered';
    offer.counter = { id: this.nextCounterId++, status: 'pending' };
    const listedAtSend = this.listing().find((o) => o.offer_id === offer.id)?.offer_status;
    if (this.random() < 0.3) {
      // The answer was lost (a kill): the drain reconciles the command later, from the listings.
      this.unknown.add(offer.id);
      return;
    }
    this.ledger.set(offer.id, {
      id: this.reading.answerHasId ? String(offer.counter.id) : undefined,
      status: this.reading.pendingWord,
      listedAtSend,
      amount: counterAmount(offer.counter.id),
    });
  }

  private decide(offer: TrueOffer | undefined, decision: 'accepted' | 'rejected'): void {
    if (!offer) return;
    offer.status = decision;
    if (decision === 'accepted') this.cascade(offer.id);
  }

  private cascade(acceptedId: number): void {
    for (const o of this.offers) {
      if (o.id === acceptedId) continue;
      // Only the undecided ones: a withdrawn offer stays withdrawn.
      if (o.status === 'active' || o.status === 'countered') o.status = 'rejected';
      if (o.counter?.status === 'pending') o.counter.status = 'rejected';
    }
  }

  private buyerAnswers(offer: TrueOffer | undefined, answer: 'accepted' | 'rejected'): void {
    if (!offer?.counter) return;
    if (answer === 'accepted') {
      offer.counter.status = 'accepted';
      const made: TrueOffer = {
        id: this.nextId++,
        status: 'accepted',
        isCounterOffer: true,
        counterOfferId: offer.counter.id,
        amount: counterAmount(offer.counter.id),
      };
      this.offers.push(made);
      this.cascade(made.id);
      offer.status = 'rejected';
      return;
    }
    offer.counter.status = 'rejected';
    offer.status = this.reading.afterRefusal ?? 'rejected';
    // The UPDATE, sometimes lost where the listings can tell (a service that lists countered
    // offers rejected at once leaves nothing else to tell by). One that names a counter whose
    // command is still unknown waits in the inbox (retried) until the ledger links it.
    if (!this.reading.updateDelivered) return;
    if (this.listingsTellRefusal() && this.random() < 0.2) return;
    this.updates.add(offer.id);
    this.applyUpdates();
  }

  // Whether the daemon can read a buyer's refusal from the listings alone: the countered offer moves
  // from how it was listed waiting to rejected, or, listed `countered` while waiting, back to active.
  private listingsTellRefusal(): boolean {
    const after = this.reading.afterRefusal ?? 'rejected';
    if (after === 'rejected') return this.reading.listedAs !== 'rejected';
    return after === 'active' && this.reading.listedAs === 'countered';
  }

  private applyUpdates(): void {
    for (const offerId of this.updates) {
      const known = this.ledger.get(offerId);
      if (!known) continue;
      this.updates.delete(offerId);
      if (!isAnsweredCounter(known.status)) this.ledger.set(offerId, { ...known, status: 'rejected' });
    }
  }

  // A reconcile (or an event's refresh): the view of every offer, and what it teaches the ledger.
  reconcile(): void {
    for (const offerId of this.unknown) {
      const verdict = counterVerdict(offerId, this.listing(), this.otherCounters(offerId).ids, {
        amount: counterAmount(this.offers.find((o) => o.id === offerId)?.counter?.id ?? 0),
        habit: this.habit(),
      });
      if (!verdict.found && verdict.moot) {
        // Sent again and refused by the service: the record shows the offer's real status.
        this.unknown.delete(offerId);
        continue;
      }
      if (!verdict.found) continue; // still unknown: the record stays where the agent put it
      this.unknown.delete(offerId);
      const id = verdict.result.counter_offer_id;
      const counterId = this.offers.find((o) => o.id === offerId)?.counter?.id ?? 0;
      if (
        this.reading.listedAs === 'rejected' &&
        this.habit() === undefined &&
        !verdict.result.counter_offer_id
      )
        // Nothing the service shows tells a refused counter from a pending one here (the first
        // counter of a service that lists countered offers rejected): not checked until another
        // counter has shown how this service lists a waiting one.
        this.undecidable.add(offerId);
      this.ledger.set(offerId, {
        amount: counterAmount(counterId),
        id: id === undefined ? undefined : String(id),
        status: verdict.result.counter_offer_status ?? this.reading.pendingWord,
        // The write-back's read, learnt unless the verdict left it unsettled.
        listedAtSend: verdict.result.listing_unsettled
          ? undefined
          : (verdict.result.listed_at_send ??
            this.listing().find((o) => o.offer_id === offerId)?.offer_status),
      });
    }
    this.applyUpdates();
    const listing = this.listing();
    for (const offer of listing) {
      const known = this.ledger.get(offer.offer_id);
      if (!known) continue;
      const view = offerRecordView({
        offer,
        requestOffers: listing,
        counter: known,
        otherCounters: this.otherCounters(offer.offer_id),
      });
      this.ledger.set(offer.offer_id, learnCounter(known, view, offer.offer_status));
    }
  }

  // As CounterOfferExecutor.listingHabit reads it from the ledger.
  habit(): string | undefined {
    return habitOf([...this.ledger.values()], ['countered', 'active', 'rejected']);
  }

  otherCounters(offerId: number): { ids: Set<string>; unnamed: number } {
    const others = [...this.ledger.entries()].filter(([id]) => id !== offerId).map(([, c]) => c);
    return {
      ids: new Set(others.map((c) => c.id).filter((id): id is string => id !== undefined)),
      unnamed: others.filter((c) => c.id === undefined).length,
    };
  }

  // What the agent should see on each record the daemon knows, from the service's own state.
  truth(offer: TrueOffer): { stage: OfferStage; counter?: CounterStatus } | null {
    if (offer.status === 'accepted') return { stage: 'accepted' };
    // A counter whose outcome is still unknown: the record stays in Counter requested, the
    // command and its record error are shown to the operator (not a stage to check here).
    // A counter found from a listing no counter had yet shown the meaning of is decided once one has
    // (the habit): from then on the record must show the truth.
    if (this.unknown.has(offer.id) || (this.undecidable.has(offer.id) && this.habit() === undefined))
      return null;
    // A refusal no UPDATE told, then the offer withdrawn before a read showed the refusal: the listing
    // shows only the withdrawal, so the counter's word may be either; the stage is the same.
    if (
      offer.status === 'withdrawn' &&
      offer.counter?.status === 'rejected' &&
      !this.reading.updateDelivered &&
      this.ledger.has(offer.id)
    )
      return { stage: 'counter_rejected' };
    if (offer.counter && this.ledger.has(offer.id)) {
      const ended = offer.counter.status === 'rejected' || offer.counter.status === 'withdrawn';
      const stage: OfferStage = ended ? 'counter_rejected' : 'countered';
      return { stage, counter: offer.counter.status };
    }
    if (offer.status === 'rejected' || offer.status === 'withdrawn') return { stage: 'rejected' };
    if (offer.status === 'countered') return { stage: 'countered' };
    return { stage: 'incoming' };
  }
}

const READINGS: Reading[] = [
  { listedAs: 'countered', answerHasId: true, pendingWord: 'pending', updateDelivered: true },
  { listedAs: 'countered', answerHasId: false, pendingWord: 'pending', updateDelivered: false },
  { listedAs: 'active', answerHasId: true, pendingWord: 'pending', updateDelivered: true },
  { listedAs: 'active', answerHasId: false, pendingWord: 'open', updateDelivered: false },
  // Listed rejected at once: only the UPDATE can tell a buyer's refusal, so it must come.
  { listedAs: 'rejected', answerHasId: true, pendingWord: 'pending', updateDelivered: true },
  { listedAs: 'rejected', answerHasId: false, pendingWord: 'pending', updateDelivered: true },
  // The accepting offer names no counter.
  {
    listedAs: 'countered',
    answerHasId: true,
    pendingWord: 'pending',
    updateDelivered: true,
    offerNamesCounter: false,
  },
  {
    listedAs: 'active',
    answerHasId: false,
    pendingWord: 'open',
    updateDelivered: false,
    offerNamesCounter: false,
  },
  // Nor flags itself a counter offer: only our counter's amount tells.
  {
    listedAs: 'countered',
    answerHasId: false,
    pendingWord: 'pending',
    updateDelivered: true,
    offerNamesCounter: false,
    counterOfferFlag: false,
  },
  {
    listedAs: 'active',
    answerHasId: true,
    pendingWord: 'pending',
    updateDelivered: true,
    counterOfferFlag: false,
  },
  // The offer back to active once its buyer rejects the counter: listed `countered` while waiting,
  // its return to active tells the refusal with no UPDATE.
  {
    listedAs: 'countered',
    answerHasId: true,
    pendingWord: 'pending',
    updateDelivered: false,
    afterRefusal: 'active',
  },
  {
    listedAs: 'countered',
    answerHasId: false,
    pendingWord: 'open',
    updateDelivered: false,
    afterRefusal: 'active',
  },
  {
    listedAs: 'countered',
    answerHasId: true,
    pendingWord: 'pending',
    updateDelivered: true,
    afterRefusal: 'active',
  },
  // Listed active or rejected while waiting: only the UPDATE tells, so it must come.
  {
    listedAs: 'active',
    answerHasId: false,
    pendingWord: 'pending',
    updateDelivered: true,
    afterRefusal: 'active',
  },
  {
    listedAs: 'rejected',
    answerHasId: true,
    pendingWord: 'pending',
    updateDelivered: true,
    afterRefusal: 'active',
  },
  // Left countered: only the UPDATE tells.
  {
    listedAs: 'countered',
    answerHasId: true,
    pendingWord: 'pending',
    updateDelivered: true,
    afterRefusal: 'countered',
  },
  {
    listedAs: 'active',
    answerHasId: false,
    pendingWord: 'open',
    updateDelivered: true,
    afterRefusal: 'countered',
  },
];

const SEEDS = Array.from({ length: 150 }, (_, i) => 20261124 + i);

describe('offer records converge after one reconcile (property)', () => {
  it.each(READINGS.map((r) => [JSON.stringify(r), r] as const))('%s', (_name, reading) => {
    for (const seed of SEEDS) {
      const random = prng(seed);
      const world = new World(reading, random);
      const steps = 5 + Math.floor(random() * 25);
      for (let i = 0; i < steps; i++) world.step();
      world.reconcile();
      const listing = world.listing();
      for (const offer of world.offers) {
        const listed = listing.find((o) => o.offer_id === offer.id) as Offer;
        const known = world.ledger.get(offer.id);
        const view = offerRecordView({
          offer: listed,
          requestOffers: listing,
          counter: known,
          otherCounters: world.otherCounters(offer.id),
        });
        const truth = world.truth(offer);
        if (truth === null) continue;
        const shown = {
          stage: view.stage,
          ...(truth.counter !== undefined ? { counter: normalise(view.counterStatus, reading) } : {}),
        };
        if (JSON.stringify(shown) !== JSON.stringify(truth))
          throw new Error(
            `seed ${seed}, offer ${offer.id}: shows ${JSON.stringify(shown)}, the service says ${JSON.stringify(truth)} (${JSON.stringify({ offer, known })})`,
          );
      }
    }
  });
});

// Writes ordered by read time, as a property: readers take the service's listing at random moments
// and wait a random while for their turn (events, reconcile pages, decisions' write-backs), some are
// killed between their CRM write and their links, the service moves on meanwhile. Once every
// writer has had its turn, with no reconcile after, each record shows what the newest read of its
// offer said. Each writer follows OffersService.writeOffers: classify against the link (the
// ledger's own rule, classifyLink), the changed links forgotten and given the read time, one CRM
// write of the batch, the links. A record's content is taken at the read (the listing and what the
// ledger knew of counters then), so "what the newest read said" is well defined.
interface Read {
  readAt: number;
  contents: Map<number, string>;
}

class Writers {
  readonly links = new Map<number, LinkVersion>();
  readonly crm = new Map<number, string>();
  // Records a killed writer created and did not link: nothing in the ledger vouches for them, so an
  // older writer's create goes ahead, and the next pass shows the newest read (as before read times).
  readonly leftToNextPass = new Set<number>();
  private now = 0;

  constructor(private readonly byReadTime: boolean) {}

  tick(): number {
    return ++this.now;
  }

  write(read: Read, killed: boolean): void {
    const now = new Date(this.tick());
    const readAt = this.byReadTime ? new Date(read.readAt) : undefined;
    const batch: [number, string][] = [];
    for (const [offerId, content] of read.contents) {
      const link = this.links.get(offerId);
      const kind = classifyLink(link, { contentHash: content, readAt }, now);
      if (kind === 'stale') continue;
      if (kind === 'unchanged') {
        if (link && readAt) link.readAt = later(link.readAt, readAt, now); // noteRead
        continue;
      }
      if (link) {
        // forgetContent
        link.contentHash = '';
        if (readAt) link.readAt = later(link.readAt, readAt, now);
      }
      batch.push([offerId, content]);
    }
    for (const [offerId, content] of batch) this.crm.set(offerId, content);
    if (killed) {
      for (const [offerId] of batch) if (!this.links.has(offerId)) this.leftToNextPass.add(offerId);
      return;
    }
    for (const [offerId, content] of batch)
      this.links.set(offerId, {
        crmId: String(offerId),
        contentHash: content,
        state: 'active',
        readAt: readAt ?? null,
      });
  }
}

// LinkRepository.raiseReadAt: forward only, or over a read time later than now.
function later(current: Date | null, readAt: Date, now: Date): Date {
  if (!current || current < readAt || current > now) return readAt;
  return current;
}

function recordContents(world: World): Map<number, string> {
  const listing = world.listing();
  return new Map(
    listing.map((offer) => {
      const view = offerRecordView({
        offer,
        requestOffers: listing,
        counter: world.ledger.get(offer.offer_id),
        otherCounters: world.otherCounters(offer.offer_id),
      });
      return [offer.offer_id, JSON.stringify({ status: offer.offer_status, ...view })];
    }),
  );
}

// Seeds whose records end showing something other than their offer's newest read.
function seedsNotShowingNewest(reading: Reading, byReadTime: boolean): number[] {
  const wrong: number[] = [];
  for (const seed of SEEDS) {
    const random = prng(seed);
    const world = new World(reading, random);
    const writers = new Writers(byReadTime);
    const waiting: Read[] = [];
    const newest = new Map<number, { readAt: number; content: string }>();
    const take = () => waiting.splice(Math.floor(random() * waiting.length), 1)[0];
    const steps = 20 + Math.floor(random() * 60);
    for (let i = 0; i < steps; i++) {
      const roll = random();
      if (roll < 0.3) world.step();
      else if (roll < 0.7) {
        const read = { readAt: writers.tick(), contents: recordContents(world) };
        for (const [offerId, content] of read.contents) newest.set(offerId, { readAt: read.readAt, content });
        waiting.push(read);
      } else if (waiting.length > 0) writers.write(take(), random() < 0.25);
    }
    while (waiting.length > 0) writers.write(take(), random() < 0.25);
    for (const [offerId, { content }] of newest)
      if (!writers.leftToNextPass.has(offerId) && writers.crm.get(offerId) !== content) {
        wrong.push(seed);
        break;
      }
  }
  return wrong;
}

describe('offer records show the newest read, whatever order writers take their turns in (property)', () => {
  it.each(READINGS.map((r) => [JSON.stringify(r), r] as const))('%s', (_name, reading) => {
    expect(seedsNotShowingNewest(reading, true)).toEqual([]);
  });

  it('is a property the writers broke when they wrote in the order they came', () => {
    expect(seedsNotShowingNewest(READINGS[0], false).length).toBeGreaterThan(0);
  });
});

function counterAmount(counterId: number): number {
  return 200_000 + counterId;
}

function normalise(status: string | undefined, reading: Reading): string | undefined {
  return status === reading.pendingWord ? 'pending' : status;
}
