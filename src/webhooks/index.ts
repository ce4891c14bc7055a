export * from './webhooks.module';
export * from './webhook-body';
export * from './webhook-secret';
export * from './webhook-registration.service';
export * from './webhook-intake.service';
