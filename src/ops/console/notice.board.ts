import { randomBytes } from 'node:crypto';

export interface Notice {
  kind: 'ok' | 'error';
  text: string;
  // The brokerage the action concerned: the notice is shown in its section.
  brokerageId?: string;
}

const KEPT = 50;

// What an action did, kept briefly under a random id so the redirect after a POST can show it without
// putting words in the URL (a crafted link cannot make the page say something it did not do).
export class NoticeBoard {
  private readonly notices = new Map<string, Notice>();

  post(notice: Notice): string {
    const id = randomBytes(8).toString('hex');
    this.notices.set(id, notice);
    if (this.notices.size > KEPT) this.notices.delete(this.notices.keys().next().value as string);
    return id;
  }

  read(id: unknown): Notice | undefined {
    return typeof id === 'string' ? this.notices.get(id) : undefined;
  }
}
