import { Injectable, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { JsonObject } from '../cash-offer/schema';
import { discoverMethods } from '../common/discovered-handlers';
import { InboxHandler } from './inbox-handler.decorator';

export interface InboxEventContext {
  brokerageId: string;
  eventId: number;
  signal: AbortSignal;
  // When the webhook delivered it (the inbox row's received_at).
  receivedAt?: Date;
}

// Applies one stored event. Must be idempotent and never move a record backwards: the same event
// may be applied again after a crash, and events can arrive late.
export type InboxEventHandler = (payload: JsonObject, context: InboxEventContext) => Promise<void>;

// Every @InboxHandler(eventType) method, found at start (today all in OfferEventsHandler); the inbox
// worker looks them up by event type. `register` adds a stand-in (the inbox e2e test has one).
@Injectable()
export class InboxEventHandlers implements OnModuleInit {
  private readonly handlers = new Map<string, InboxEventHandler>();

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
  ) {}

  onModuleInit(): void {
    for (const found of discoverMethods(this.discovery, this.scanner, InboxHandler)) {
      const method = (found.instance as Record<string, InboxEventHandler>)[found.methodName];
      this.register(found.metadata, method.bind(found.instance), `${found.className}.${found.methodName}`);
    }
  }

  register(eventType: string, handler: InboxEventHandler, by = 'a stand-in'): void {
    if (this.handlers.has(eventType))
      throw new Error(`a handler for "${eventType}" events is already registered (again by ${by})`);
    this.handlers.set(eventType, handler);
  }

  get(eventType: string): InboxEventHandler | undefined {
    return this.handlers.get(eventType);
  }
}
