export { InboxModule } from './inbox.module';
export * from './inbox-event.handlers';
export * from './inbox.processor';
export * from './inbox-handler.decorator';
export * from './event-refused.error';
export * from './event-payload.reader';
export * from './event-waits.error';
