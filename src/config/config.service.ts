import { Logger } from '@nestjs/common';
import { SecretRedactor } from '../ops/logging/secret-redactor';
import type { Environment } from './brokerage-secrets';
import { secretValues } from './brokerage-secrets';
import { diffBrokerages, isEmptyDiff, type ConfigDiff } from './config-diff';
import { ConfigInvalidError, formatProblem, type ConfigProblem } from './config-error';
import { loadBrokerageConfigs, type LoadedBrokerage } from './config.loader';

export type ConfigChangeListener = (diff: ConfigDiff) => void | Promise<void>;

export interface ReloadResult {
  applied: boolean;
  diff: ConfigDiff;
  problems: ConfigProblem[];
}

// The brokerages the daemon serves. A reload with problems keeps the last good set running and marks
// the config invalid (readiness fails) until a reload succeeds. Built by the entry point before Nest
// starts (app.bootstrap.ts) and provided as a value, so it carries no DI decorator.
export class ConfigService {
  private readonly logger = new Logger(ConfigService.name);
  private current: LoadedBrokerage[] = [];
  private problems: ConfigProblem[] = [];
  private readonly listeners: ConfigChangeListener[] = [];

  constructor(
    readonly configDir: string,
    private readonly redactor: SecretRedactor,
    private readonly env: Environment = process.env,
  ) {}

  // Initial load. `strict` (the daemon) throws on any problem; the CLI keeps going to report them.
  load(strict: boolean): void {
    const result = loadBrokerageConfigs(this.configDir, this.env);
    this.problems = result.problems;
    if (strict && result.problems.length > 0) throw new ConfigInvalidError(result.problems);
    this.accept(result.brokerages);
  }

  get valid(): boolean {
    return this.problems.length === 0;
  }

  currentProblems(): ConfigProblem[] {
    return [...this.problems];
  }

  brokerages(): LoadedBrokerage[] {
    return [...this.current];
  }

  enabledBrokerages(): LoadedBrokerage[] {
    return this.current.filter((b) => b.config.enabled !== false);
  }

  get(brokerageId: string): LoadedBrokerage | undefined {
    return this.current.find((b) => b.id === brokerageId);
  }

  onChange(listener: ConfigChangeListener): () => void {
    this.listeners.push(listener);
    return () => {
      const index = this.listeners.indexOf(listener);
      if (index >= 0) this.listeners.splice(index, 1);
    };
  }

  // SIGHUP and the CLI land here. All-or-nothing: one bad file and nothing changes.
  async reload(): Promise<ReloadResult> {
    const result = loadBrokerageConfigs(this.configDir, this.env);
    if (result.problems.length > 0) {
      this.problems = result.problems;
      for (const problem of result.problems)
        this.logger.error(`config reload rejected: ${formatProblem(problem)}`);
      return { applied: false, diff: { added: [], changed: [], removed: [] }, problems: result.problems };
    }
    this.problems = [];
    const diff = diffBrokerages(this.current, result.brokerages);
    this.accept(result.brokerages);
    this.logger.log(
      `config reloaded: ${result.brokerages.length} brokerage(s); added [${ids(diff.added)}], changed [${ids(diff.changed)}], removed [${ids(diff.removed)}]`,
    );
    if (!isEmptyDiff(diff)) {
      for (const listener of this.listeners) await listener(diff);
    }
    return { applied: true, diff, problems: [] };
  }

  private accept(brokerages: LoadedBrokerage[]): void {
    for (const brokerage of brokerages) this.redactor.register(...secretValues(brokerage.secrets));
    this.current = brokerages;
  }
}

function ids(list: LoadedBrokerage[]): string {
  return list.map((b) => b.id).join(', ');
}
