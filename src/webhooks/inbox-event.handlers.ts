import { Injectable } from '@nestjs/common';
import { JsonObject } from '../cash-offer/schema';

export interface InboxEventContext {
  brokerageId: string;
  eventId: number;
  signal: AbortSignal;
}

// Applies one stored event. Must be idempotent and never move a record backwards: the same event
// may be applied again after a crash, and events can arrive late.
export type InboxEventHandler = (payload: JsonObject, context: InboxEventContext) => Promise<void>;

// The flows register what they apply (offers: new_offer and UPDATE; request status: approvals).
@Injectable()
export class InboxEventHandlers {
  private readonly handlers = new Map<string, InboxEventHandler>();

  register(eventType: string, handler: InboxEventHandler): void {
    if (this.handlers.has(eventType))
      throw new Error(`a handler for "${eventType}" events is already registered`);
    this.handlers.set(eventType, handler);
  }

  get(eventType: string): InboxEventHandler | undefined {
    return this.handlers.get(eventType);
  }
}
