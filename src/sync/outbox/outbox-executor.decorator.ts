import { DiscoveryService } from '@nestjs/core';

// Marks the provider that executes one kind of outbox command: `@OutboxExecutor('decide_offer')`.
// OutboxExecutors finds them at start; "who executes X" is one search for the decorator.
export const OutboxExecutor = DiscoveryService.createDecorator<string>();
