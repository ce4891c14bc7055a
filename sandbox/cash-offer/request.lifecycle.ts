import { Injectable } from '@nestjs/common';
import { Notifier } from './notifier';
import { SandboxClock } from './sandbox.clock';
import { conflict } from './sandbox.errors';
import { SandboxStore } from './sandbox.store';
import { StoredOfferRequest } from './sandbox.types';

// How long an approved request stays in the marketplace unless an expiration date is given.
export const DEFAULT_REQUEST_LIFETIME_MS = 30 * 24 * 3600 * 1000;
const ACTIVE_STATUSES = ['active', 'receiving_offers'];

export type RequestTransition = 'process' | 'approve' | 'deny' | 'expire' | 'renew' | 'close';

// The offer request statuses of docs/spec-decisions.md: in_review -> processing -> active (approved)
// or denied; active -> under_contract -> closed; active -> expired -> active (renewal).
const ALLOWED_FROM: Record<RequestTransition, readonly string[]> = {
  process: ['in_review'],
  approve: ['in_review', 'processing'],
  deny: ['in_review', 'processing'],
  expire: ACTIVE_STATUSES,
  renew: ['expired'],
  close: ['under_contract'],
};

@Injectable()
export class RequestLifecycle {
  constructor(
    private readonly store: SandboxStore,
    private readonly clock: SandboxClock,
    private readonly notifier: Notifier,
  ) {}

  isActive(r: StoredOfferRequest): boolean {
    return ACTIVE_STATUSES.includes(r.offer_request_status);
  }

  requestCreated(r: StoredOfferRequest): void {
    if (!r.seeded) this.store.apiRequests.add(r);
  }

  assertCan(r: StoredOfferRequest, t: RequestTransition): void {
    if (!ALLOWED_FROM[t].includes(r.offer_request_status))
      throw conflict(
        `offer request ${r.offer_request_id} is ${r.offer_request_status}; "${t}" needs one of ${ALLOWED_FROM[t].join(', ')}`,
      );
  }

  apply(r: StoredOfferRequest, t: RequestTransition, expiresAt?: string | null): void {
    this.assertCan(r, t);
    const now = this.clock.nowIso();
    switch (t) {
      case 'process':
        r.offer_request_status = 'processing';
        return;
      case 'approve':
        r.offer_request_is_approved = true;
        r.offer_request_decided_at = now;
        r.offer_requested_decided_by = 'a3e1f0c2-5b6d-4e7f-8091-a2b3c4d5e6f7';
        this.activate(r, expiresAt);
        this.notifier.event(r, {
          event: 'offer_request_approved',
          offer_request_id: r.offer_request_id,
          offer_request_status: 'receiving_offers',
        });
        this.notifier.email(
          r,
          'offer_request_approved',
          `Your offer request ${r.offer_request_id} was approved`,
          `Offer request ${r.offer_request_id} (${addressOf(r)}) was approved and sent to buyers.`,
        );
        return;
      case 'deny':
        r.offer_request_is_approved = false;
        r.offer_request_decided_at = now;
        r.offer_request_status = 'denied';
        return;
      case 'expire':
        this.deactivate(r, 'expired');
        return;
      case 'renew':
        r.offer_request_refreshed_at = now;
        this.activate(r, expiresAt);
        return;
      case 'close':
        r.offer_request_status = 'closed';
        return;
    }
  }

  // The control API's move to any status (the spec shows no transitions: a service may reopen a
  // request, under_contract -> active, or take a denied one back into review). No event: the spec
  // shows none for such moves. An active status puts it in the marketplace, any other takes it out.
  moveTo(r: StoredOfferRequest, status: string, expiresAt?: string | null): void {
    if (ACTIVE_STATUSES.includes(status)) {
      this.activate(r, expiresAt);
      r.offer_request_status = status;
    } else {
      this.deactivate(r, status);
    }
  }

  // Puts the request in the marketplace with a fresh expiry.
  activate(r: StoredOfferRequest, expiresAt?: string | null): void {
    r.offer_request_status = 'active';
    r.offer_request_expires_at =
      expiresAt ?? new Date(this.clock.nowMs() + DEFAULT_REQUEST_LIFETIME_MS).toISOString();
    this.store.active.add(r);
    this.store.expiringRequests.add(r);
    this.store.noteExpiry(r.offer_request_expires_at);
  }

  deactivate(r: StoredOfferRequest, status: string): void {
    r.offer_request_status = status;
    this.store.active.remove(r);
    this.store.expiringRequests.delete(r);
  }
}

export function addressOf(r: StoredOfferRequest): string {
  const p = r.property;
  if (typeof p.UnparsedAddress === 'string') return `${p.UnparsedAddress}, ${String(p.City)}`;
  return `${String(p.StreetNumber)} ${String(p.StreetName)}, ${String(p.PostalCity)}`;
}
