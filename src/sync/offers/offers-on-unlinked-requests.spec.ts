import type { BrokerageCrm } from '../../brokerages/brokerage-crm';
import type { Offer } from '../../cash-offer/schema';
import { ManualClock } from '../../common/clock';
import type { LinkInput, LinkRepository } from '../../ledger';
import { LINK } from '../common/listing-deal.properties';
import { LINK_CONTENT_WIDTH } from '../../ledger';
import {
  keptOfferContent,
  offerOfKept,
  OffersOnUnlinkedRequests,
  UNLINKED_OFFER_KEPT_MS,
} from './offers-on-unlinked-requests';
import type { OffersService } from './offers.service';

interface FakeLink extends LinkInput {
  kind: string;
  state: 'active' | 'gone';
  createdAt: Date;
}

// The ledger's links, as the class uses them: found by kind and remote id, inserted where missing
// (active or gone), listed while active, marked gone.
function fakeLinks(clock: ManualClock) {
  const rows: FakeLink[] = [];
  const find = (kind: string, remoteId: string) =>
    rows.find((r) => r.kind === kind && r.remoteId === remoteId);
  const repo = {
    find: jest.fn(async (_b: string, kind: string, remoteId: string) => find(kind, remoteId) ?? null),
    insertMissing: jest.fn(async (_b: string, kind: string, items: LinkInput[]) => {
      for (const item of items)
        if (!find(kind, item.remoteId)) rows.push({ ...item, kind, state: 'active', createdAt: clock.now() });
    }),
    listActive: jest.fn(async (_b: string, kind: string) =>
      rows.filter((r) => r.kind === kind && r.state === 'active'),
    ),
    markGone: jest.fn(async (_b: string, kind: string, ids: string[]) => {
      for (const r of rows) if (r.kind === kind && ids.includes(r.remoteId)) r.state = 'gone';
      return ids.length;
    }),
  };
  const link = (kind: string, remoteId: string) =>
    rows.push({
      kind,
      remoteId,
      crmId: `crm-${remoteId}`,
      contentHash: '',
      state: 'active',
      createdAt: clock.now(),
    });
  const kept = () => rows.filter((r) => r.kind === LINK.offerOnUnlinkedRequest && r.state === 'active');
  return { repo, link, kept };
}

const offer = (id: number, requestId: number, status = 'active'): Offer =>
  ({
    offer_id: id,
    offer_request_id: requestId,
    offer_amount: 300_000 + id,
    offer_status: status,
    offer_expires: '2026-03-01T12:01:00.000Z',
    created_at: '2026-03-01T11:59:00.000Z',
  }) as unknown as Offer;

describe('OffersOnUnlinkedRequests', () => {
  const crm = { brokerageId: 'acme' } as BrokerageCrm;
  let clock: ManualClock;
  let links: ReturnType<typeof fakeLinks>;
  let applyOffers: jest.Mock;
  let kept: OffersOnUnlinkedRequests;
  const readAt = new Date('2026-03-01T12:00:00.000Z');

  beforeEach(() => {
    clock = new ManualClock(readAt);
    links = fakeLinks(clock);
    applyOffers = jest.fn(async () => ({ failed: 0 }));
    kept = new OffersOnUnlinkedRequests(
      links.repo as unknown as LinkRepository,
      { applyOffers } as unknown as OffersService,
      clock,
    );
    links.link(LINK.offerRequest, '1');
  });

  it('keeps the open offers a pass read on requests not linked, as first read', async () => {
    await kept.keep(
      'acme',
      [
        offer(10, 1),
        offer(20, 2),
        offer(21, 2, 'accepted'),
        offer(22, 2, 'rejected'),
        offer(23, 2, 'expired'),
        offer(24, 2, 'withdrawn'),
      ],
      readAt,
    );
    await kept.keep('acme', [offer(20, 2, 'countered')], new Date(readAt.getTime() + 1000));
    expect(
      links.kept().map((k) => [k.remoteId, (JSON.parse(k.contentHash) as Offer).offer_status, k.readAt]),
    ).toEqual([['20', 'active', readAt]]);
  });

  it('once the request is linked, makes the record of an offer the pass no longer lists from that read', async () => {
    await kept.keep('acme', [offer(20, 2), offer(30, 3)], readAt);
    clock.advance(120_000);
    expect(await kept.showLinked(crm, new Set())).toBe(0);
    expect(applyOffers).not.toHaveBeenCalled();

    links.link(LINK.offerRequest, '2');
    links.link(LINK.offerRequest, '3');
    // Offer 30 is listed: linked after its page was read, the next pass writes it as listed.
    expect(await kept.showLinked(crm, new Set(['30']))).toBe(1);
    expect(applyOffers).toHaveBeenCalledTimes(1);
    expect(applyOffers).toHaveBeenCalledWith(
      crm,
      [
        expect.objectContaining({
          offer_id: 20,
          offer_request_id: 2,
          offer_amount: 300_020,
          offer_status: 'active',
        }),
      ],
      { readAt },
    );
    expect(links.kept().map((k) => k.remoteId)).toEqual(['30']);

    // The pass wrote offer 30's record: nothing left to keep.
    links.link(LINK.offer, '30');
    expect(await kept.showLinked(crm, new Set(['30']))).toBe(0);
    expect(links.kept()).toEqual([]);
  });

  it('tries a record the CRM refused again after the next pass', async () => {
    await kept.keep('acme', [offer(20, 2)], readAt);
    links.link(LINK.offerRequest, '2');
    applyOffers.mockResolvedValueOnce({ failed: 1 });
    expect(await kept.showLinked(crm, new Set())).toBe(0);
    expect(links.kept().map((k) => k.remoteId)).toEqual(['20']);
    expect(await kept.showLinked(crm, new Set())).toBe(1);
    expect(links.kept()).toEqual([]);
  });

  it('forgets an offer on a request never linked (made outside the daemon) after a day, and keeps it no more', async () => {
    await kept.keep('acme', [offer(20, 2)], readAt);
    clock.advance(UNLINKED_OFFER_KEPT_MS);
    await kept.showLinked(crm, new Set(['20']));
    expect(links.kept().map((k) => k.remoteId)).toEqual(['20']);
    clock.advance(1);
    await kept.showLinked(crm, new Set(['20']));
    expect(links.kept()).toEqual([]);
    await kept.keep('acme', [offer(20, 2)], clock.now());
    expect(links.kept()).toEqual([]);
  });

  // Targeted soak 4747: a record made from the first kept form (request, amount, status, expiry)
  // showed no creation time.
  describe('the kept offer', () => {
    it('is the offer as read, where it fits', () => {
      const read = {
        ...offer(20, 2),
        earnest_money: 5000,
        offer_memo: 'Cash, quick close',
      } as unknown as Offer;
      expect(offerOfKept('20', keptOfferContent(read))).toEqual(read);
    });

    it('gives up its longest other fields, never its essentials, to fit a link', () => {
      const read = {
        ...offer(20, 2),
        earnest_money: 5000,
        offer_memo: 'x'.repeat(500),
        additional_terms: { note: 'y'.repeat(400) },
      } as unknown as Offer;
      const content = keptOfferContent(read);
      expect(content.length).toBeLessThanOrEqual(LINK_CONTENT_WIDTH);
      const kept = offerOfKept('20', content) as unknown as Record<string, unknown>;
      expect(kept).toMatchObject({ ...offer(20, 2), earnest_money: 5000 });
      expect(kept.offer_memo).toBeUndefined();
      expect(kept.additional_terms).toBeUndefined();
    });

    it('reads the short form of a link written before', () => {
      expect(offerOfKept('20', '{"r":2,"a":300020,"s":"active","e":null}')).toMatchObject({
        offer_id: 20,
        offer_request_id: 2,
        offer_amount: 300_020,
      });
      expect(offerOfKept('20', 'not json')).toBeUndefined();
    });
  });
});
