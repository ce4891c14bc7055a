import type { DynamicModule, ExceptionFilter, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter, type NestExpressApplication } from '@nestjs/platform-express';
import express from 'express';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SimulatorAppOptions {
  host: string;
  port: number;
  // How long an idle keep-alive connection stays open.
  keepAliveTimeoutMs: number;
  // The filter (a provider of the module) that renders every error as the vendor does.
  exceptionFilter?: Type<ExceptionFilter>;
}

export interface RunningSimulatorApp {
  app: NestExpressApplication;
  url: string;
  port: number;
}

// One simulator as its own Nest application on express, listening on `host`: the vendor's answers
// carry no X-Powered-By and no ETag, and paths match as the vendor spells them (set before Nest
// registers a route, which creates express's router). Bodies are each simulator's to read, after
// its authentication and faults, so Nest's body parser is off. No logger option: Nest's `logger`
// replaces the process-wide logger, so a simulator logs through whichever one the process set (the
// daemon's pino in the embedded demo). A failed listen closes the app before it rejects.
export async function startSimulatorApp(
  module: DynamicModule,
  options: SimulatorAppOptions,
): Promise<RunningSimulatorApp> {
  const expressApp = express();
  expressApp.disable('x-powered-by');
  expressApp.set('etag', false);
  expressApp.set('case sensitive routing', true);
  const app = await NestFactory.create<NestExpressApplication>(module, new ExpressAdapter(expressApp), {
    bodyParser: false,
    abortOnError: false,
    forceCloseConnections: true,
  });
  if (options.exceptionFilter) app.useGlobalFilters(app.get(options.exceptionFilter));
  const server: Server = app.getHttpServer();
  server.keepAliveTimeout = options.keepAliveTimeoutMs;
  try {
    await app.listen(options.port, options.host);
  } catch (error) {
    await app.close();
    throw error;
  }
  const port = (server.address() as AddressInfo).port;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return { app, url: `http://${host}:${port}`, port };
}
