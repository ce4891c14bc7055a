import { Module, type MiddlewareConsumer, type NestModule } from '@nestjs/common';
import { urlencoded } from 'express';
import { AdminAccess } from './admin-access.service';
import { AdminLoginController } from './admin-login.controller';

// The admin listener's credential, host and origin checks (AdminAccess.gate, installed by daemon.ts)
// and its sign-in form. Daemon only.
@Module({
  controllers: [AdminLoginController],
  providers: [AdminAccess],
  exports: [AdminAccess],
})
export class AdminAccessModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(urlencoded({ extended: false, limit: '4kb' })).forRoutes('login');
  }
}
