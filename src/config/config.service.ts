import { Logger } from '@nestjs/common';
import { basename, extname } from 'node:path';
import { SecretRedactor } from '../observability/logging/secret-redactor';
import type { BrokerageSecrets, Environment } from './brokerage-secrets';
import { secretValues } from './brokerage-secrets';
import { diffBrokerages, isEmptyDiff, type ConfigDiff } from './config-diff';
import { ConfigInvalidError, formatProblem, type ConfigProblem } from './config-error';
import { loadBrokerageConfigs, type LoadedBrokerage } from './config.loader';

export type ConfigChangeListener = (diff: ConfigDiff) => void | Promise<void>;

export interface ReloadResult {
  // False only when nothing could be applied: a problem outside any brokerage file (CONFIG_DIR).
  applied: boolean;
  diff: ConfigDiff;
  problems: ConfigProblem[];
  // Brokerages whose file failed to load: each keeps its last good config, if it had one, and is
  // unready until a reload loads it; the others are reloaded as usual.
  failed: string[];
}

// The brokerages the daemon serves. A reload applies every brokerage whose file loads; one that fails
// keeps its last good config and is reported unready on its own (readiness, the reload verdict), so
// one bad file or missing secret never holds up the others. Built by the entry point before Nest
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

  // Problems that belong to no brokerage file (CONFIG_DIR unreadable): the whole config is in doubt.
  globalProblems(): ConfigProblem[] {
    return this.problems.filter((p) => brokerageOfProblem(p) === undefined);
  }

  // Brokerage id (its file's name) -> the problems that keep it unready.
  unreadyBrokerages(): Map<string, ConfigProblem[]> {
    const unready = new Map<string, ConfigProblem[]>();
    for (const problem of this.problems) {
      const id = brokerageOfProblem(problem);
      if (id !== undefined) unready.set(id, [...(unready.get(id) ?? []), problem]);
    }
    return unready;
  }

  currentProblems(): ConfigProblem[] {
    return [...this.problems];
  }

  brokerages(): LoadedBrokerage[] {
    return [...this.current];
  }

  // Whether a file names `brokerageId`, loaded or not: what the ledger's own actions (pause, replay)
  // need, as one whose file does not load in this shell (the daemon may hold the secrets it lacks)
  // still has its rows and jobs.
  isKnown(brokerageId: string): boolean {
    return this.get(brokerageId) !== undefined || this.unreadyBrokerages().has(brokerageId);
  }

  // Why `brokerageId` is not among the loaded brokerages, for the operator: what keeps its file from
  // loading (a secret this shell lacks, an invalid field), or that no file names it, with the ids
  // that do, a file that does not load among them and said so.
  whyNotLoaded(brokerageId: string): string {
    const unready = this.unreadyBrokerages();
    const problems = unready.get(brokerageId);
    if (problems)
      return `brokerage "${brokerageId}" is not loaded: ${problems.map(formatProblem).join('; ')}`;
    const loaded = this.current.map((b) => b.id);
    const known = [
      ...loaded,
      ...[...unready.keys()]
        .filter((id) => !loaded.includes(id))
        .sort()
        .map((id) => `${id} (its file does not load)`),
    ];
    return `no brokerage "${brokerageId}" is configured in ${this.configDir} (known: ${known.join(', ') || 'none'})`;
  }

  enabledBrokerages(): LoadedBrokerage[] {
    return this.current.filter((b) => b.config.enabled !== false);
  }

  get(brokerageId: string): LoadedBrokerage | undefined {
    return this.current.find((b) => b.id === brokerageId);
  }

  // A brokerage's secrets as its file and secret files give them now, whether or not they were
  // reloaded: undefined when the file no longer loads (or the brokerage is gone).
  secretsOnDisk(brokerageId: string): BrokerageSecrets | undefined {
    return loadBrokerageConfigs(this.configDir, this.env).brokerages.find((b) => b.id === brokerageId)
      ?.secrets;
  }

  onChange(listener: ConfigChangeListener): () => void {
    this.listeners.push(listener);
    return () => {
      const index = this.listeners.indexOf(listener);
      if (index >= 0) this.listeners.splice(index, 1);
    };
  }

  // SIGHUP lands here. Per brokerage: a file that fails keeps its brokerage on the last good config.
  async reload(): Promise<ReloadResult> {
    const result = loadBrokerageConfigs(this.configDir, this.env);
    this.problems = result.problems;
    for (const problem of result.problems)
      this.logger.error(`config reload rejected: ${formatProblem(problem)}`);
    if (this.globalProblems().length > 0)
      return {
        applied: false,
        diff: { added: [], changed: [], removed: [] },
        problems: result.problems,
        failed: [],
      };
    const failed = [...this.unreadyBrokerages().keys()].sort();
    const next = [
      ...result.brokerages.filter((b) => !failed.includes(b.id)),
      ...this.current.filter((b) => failed.includes(b.id)),
    ].sort((a, b) => a.id.localeCompare(b.id));
    const diff = diffBrokerages(this.current, next);
    this.accept(next);
    this.logger.log(
      `config reloaded: ${next.length} brokerage(s); added [${ids(diff.added)}], changed [${ids(diff.changed)}], removed [${ids(diff.removed)}]` +
        (failed.length > 0 ? `; failed to load [${failed.join(', ')}], kept on their last good config` : ''),
    );
    if (!isEmptyDiff(diff)) {
      for (const listener of this.listeners) await listener(diff);
    }
    return { applied: true, diff, problems: result.problems, failed };
  }

  private accept(brokerages: LoadedBrokerage[]): void {
    for (const brokerage of brokerages) this.redactor.register(...secretValues(brokerage.secrets));
    this.current = brokerages;
  }
}

// Brokerage files are named after their brokerage (the loader enforces it), so a problem's file says
// whose it is even when the file could not be parsed far enough to read its id.
function brokerageOfProblem(problem: ConfigProblem): string | undefined {
  const extension = extname(problem.file).toLowerCase();
  if (!['.yaml', '.yml', '.json'].includes(extension)) return undefined;
  return basename(problem.file, extname(problem.file));
}

function ids(list: LoadedBrokerage[]): string {
  return list.map((b) => b.id).join(', ');
}
