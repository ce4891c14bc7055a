import { Injectable } from '@nestjs/common';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { SIGNED_MEDIA_URL_TTL_MS } from '../../src/cash-offer/schema';
import { SandboxClock } from './sandbox.clock';

export type MediaCheck = 'valid' | 'expired' | 'bad-signature';

// Signed photo URLs `/media/{token}?expires=<epoch seconds>&sig=<hmac>`, valid 10 minutes of the
// sandbox clock after they are handed out.
@Injectable()
export class MediaSigner {
  private readonly secret = randomBytes(32);
  private origin = '';
  private tokenSeq = 0;
  private readonly recent = new Map<string, { expires: number; url: string }>();

  constructor(private readonly clock: SandboxClock) {}

  setOrigin(origin: string): void {
    this.origin = origin;
  }

  newToken(): string {
    return `m${(++this.tokenSeq).toString(36)}${randomBytes(4).toString('hex')}`;
  }

  private sign(token: string, expires: number): string {
    return createHmac('sha256', this.secret).update(`${token}.${expires}`).digest('base64url');
  }

  // Issue times are whole seconds, so a URL handed out twice in one second is signed once
  // (the active list re-signs every photo of every page).
  signedUrl(token: string): string {
    const expires = Math.floor((this.clock.nowMs() + SIGNED_MEDIA_URL_TTL_MS) / 1000);
    const cached = this.recent.get(token);
    if (cached?.expires === expires) return cached.url;
    const url = `${this.origin}/media/${token}?expires=${expires}&sig=${this.sign(token, expires)}`;
    if (this.recent.size > 200_000) this.recent.clear();
    this.recent.set(token, { expires, url });
    return url;
  }

  check(token: string, expiresParam: string | null, sig: string | null): MediaCheck {
    const expires = Number(expiresParam);
    if (!sig || !Number.isInteger(expires)) return 'bad-signature';
    const expected = Buffer.from(this.sign(token, expires));
    const given = Buffer.from(sig);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return 'bad-signature';
    return this.clock.nowMs() > expires * 1000 ? 'expired' : 'valid';
  }
}
