import 'reflect-metadata';
import type { INestApplicationContext } from '@nestjs/common';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { buildAppParts, FLOW_MODULES, sharedModules } from '../../../src/app';
import { SchedulerModule } from '../../../src/scheduler/scheduler.module';
import { JobRunner } from '../../../src/scheduler/job-runner.service';
import type { JobName } from '../../../src/scheduler/job.types';
import { runWhenIdle } from '../../support/run-when-idle';

export interface BuyerAppOptions {
  dir: string;
  brokerageId: string;
  cashOfferBaseUrl: string;
  cashOfferKey: string;
  crmBaseUrl: string;
  crmToken: string;
}

// The brokerage file and environment the daemon (in process or as a child) reads.
export function writeBuyerConfig(
  o: BuyerAppOptions,
  schedules: Record<string, string> = {},
): Record<string, string> {
  const configDir = join(o.dir, 'brokerages');
  mkdirSync(configDir, { recursive: true });
  const p = o.brokerageId.toUpperCase().replace(/-/g, '_');
  writeFileSync(
    join(configDir, `${o.brokerageId}.yaml`),
    stringify({
      id: o.brokerageId,
      cashOffer: {
        baseUrl: o.cashOfferBaseUrl,
        apiKeyEnv: `${p}_CASH_OFFER_KEY`,
        timeoutMs: 60_000,
        rateLimit: { requestsPerSecond: 100 },
      },
      crm: {
        kind: 'hubspot',
        baseUrl: o.crmBaseUrl,
        tokenEnv: `${p}_CRM_TOKEN`,
        rateLimit: { requestsPerSecond: 100 },
        pipelines: { listings: { pipelineId: 'default', triggerProperty: 'cash_offer_request_trigger' } },
      },
      webhooks: { publicBaseUrl: 'http://127.0.0.1:9', secretEnv: `${p}_WEBHOOK_SECRET` },
      schedules,
    }),
  );
  return {
    TZ: 'UTC',
    CONFIG_DIR: configDir,
    LEDGER_PATH: join(o.dir, 'ledger.sqlite'),
    LOG_LEVEL: process.env.TEST_LOGS ? 'info' : 'silent',
    [`${p}_CASH_OFFER_KEY`]: o.cashOfferKey,
    [`${p}_CRM_TOKEN`]: o.crmToken,
    [`${p}_WEBHOOK_SECRET`]: 'whsec-buyer-side-0123456789abcdef',
  };
}

export interface BuyerApp {
  app: INestApplicationContext;
  run(job: JobName): Promise<void>;
  close(): Promise<void>;
}

// The daemon's modules (every flow) without cron or HTTP; jobs are run by hand through the JobRunner.
export async function startBuyerApp(o: BuyerAppOptions): Promise<BuyerApp> {
  const env = writeBuyerConfig(o);
  const parts = buildAppParts({ env, strict: true });

  @Module({ imports: [...sharedModules(parts), SchedulerModule.forRoot({ cron: false }), ...FLOW_MODULES] })
  class BuyerTestModule {}

  const app = await NestFactory.createApplicationContext(BuyerTestModule, {
    logger: process.env.TEST_LOGS ? ['error', 'warn', 'log'] : false,
  });
  await app.init();
  const runner = app.get(JobRunner);
  return {
    app,
    async run(job) {
      await runWhenIdle(runner, o.brokerageId, job);
    },
    close: () => app.close(),
  };
}
