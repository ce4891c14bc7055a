export * from './webhooks.module';
export * from './webhook-body';
export * from './webhook-secret';
export * from './inbox-event.handlers';
export * from './inbox.processor';
export * from './webhook-registration.service';
export * from './webhook-intake.service';
export * from './event-refused.error';
