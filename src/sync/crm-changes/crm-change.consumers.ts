import { Injectable, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { discoverClasses } from '../../common/discovered-handlers';
import { CrmChangeConsumer, type ChangeConsumer } from './crm-change-consumer.decorator';

export interface NamedConsumer {
  name: string;
  consumer: ChangeConsumer;
}

// Every @CrmChangeConsumer provider, found at start, in the order their modules list them (seller
// side, then buyer side: see FLOW_MODULES); the crm-changes job runs them in that order.
@Injectable()
export class CrmChangeConsumers implements OnModuleInit {
  private readonly consumers: NamedConsumer[] = [];

  constructor(private readonly discovery: DiscoveryService) {}

  onModuleInit(): void {
    for (const { metadata: name, instance, className } of discoverClasses<string, ChangeConsumer>(
      this.discovery,
      CrmChangeConsumer,
    )) {
      if (this.consumers.some((c) => c.name === name))
        throw new Error(`two CRM change consumers are named "${name}" (the second is ${className})`);
      this.consumers.push({ name, consumer: instance });
    }
  }

  all(): NamedConsumer[] {
    return [...this.consumers];
  }
}
