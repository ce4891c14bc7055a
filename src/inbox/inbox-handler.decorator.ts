import { DiscoveryService } from '@nestjs/core';

// Marks the method that applies one type of stored webhook event: `@InboxHandler('new_offer')`.
// The method takes (payload, context) as InboxEventHandler does. InboxEventHandlers finds them at
// start; an event type nobody handles is dead-lettered, with that reason, when the worker reaches it.
export const InboxHandler = DiscoveryService.createDecorator<string>();
