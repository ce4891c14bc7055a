import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, extname, join, relative, isAbsolute } from 'node:path';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { parse as parseYaml } from 'yaml';
import { parseMappingOverrides } from '../crm/mapping/crm-field-mapping';
import { BrokerageConfig } from './brokerage-config.schema';
import { interpolateEnvironment } from './env-interpolation';
import { resolveSecrets, type BrokerageSecrets, type Environment } from './brokerage-secrets';
import { problemsFromValidation, type ConfigProblem } from './config-error';

// One brokerage as the daemon uses it: the validated config, its resolved secrets, and a fingerprint
// that changes when anything about it changes (used to tell a changed brokerage on reload).
export interface LoadedBrokerage {
  id: string;
  file: string;
  config: BrokerageConfig;
  secrets: BrokerageSecrets;
  fingerprint: string;
}

export interface ConfigLoadResult {
  brokerages: LoadedBrokerage[];
  problems: ConfigProblem[];
}

const CONFIG_EXTENSIONS = new Set(['.yaml', '.yml', '.json']);

export function displayPath(path: string, cwd = process.cwd()): string {
  const rel = relative(cwd, path);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
}

// Reads and validates every brokerage file in `dir`. Never throws: each problem is reported with its
// file, brokerage and key so the operator sees all of them at once.
export function loadBrokerageConfigs(dir: string, env: Environment): ConfigLoadResult {
  const shownDir = displayPath(dir);
  let names: string[];
  try {
    if (!statSync(dir).isDirectory()) {
      return { brokerages: [], problems: [{ file: shownDir, message: 'is not a directory (CONFIG_DIR)' }] };
    }
    names = readdirSync(dir)
      .filter((name) => CONFIG_EXTENSIONS.has(extname(name).toLowerCase()))
      .sort();
  } catch (error) {
    return {
      brokerages: [],
      problems: [{ file: shownDir, message: `cannot be read (CONFIG_DIR): ${errorText(error)}` }],
    };
  }

  const brokerages: LoadedBrokerage[] = [];
  const problems: ConfigProblem[] = [];
  const fileById = new Map<string, string>();
  for (const name of names) {
    const file = displayPath(join(dir, name));
    const loaded = loadBrokerageFile(join(dir, name), file, env);
    problems.push(...loaded.problems);
    if (!loaded.brokerage) continue;
    const previous = fileById.get(loaded.brokerage.id);
    if (previous) {
      problems.push({
        file,
        brokerageId: loaded.brokerage.id,
        path: 'id',
        message: `is already used by ${previous}; each brokerage id must be unique`,
      });
      continue;
    }
    fileById.set(loaded.brokerage.id, file);
    brokerages.push(loaded.brokerage);
  }
  return { brokerages, problems };
}

// A brokerage file is a few hundred bytes; one far past this is not one (and is not read whole).
export const MAX_BROKERAGE_FILE_BYTES = 1024 * 1024;

export function loadBrokerageFile(
  path: string,
  file: string,
  env: Environment,
): { brokerage?: LoadedBrokerage; problems: ConfigProblem[] } {
  let raw: unknown;
  try {
    // A FIFO (or a device) named like a brokerage file would block the read, and with it the
    // daemon's start or `validate-config`, with nothing said.
    const stat = statSync(path);
    if (!stat.isFile()) return { problems: [{ file, message: 'is not a regular file; not read' }] };
    if (stat.size > MAX_BROKERAGE_FILE_BYTES)
      return {
        problems: [
          {
            file,
            message: `is ${stat.size} bytes; a brokerage file may be ${MAX_BROKERAGE_FILE_BYTES} at most; not read`,
          },
        ],
      };
    const text = readFileSync(path, 'utf8');
    raw = extname(path).toLowerCase() === '.json' ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    return { problems: [{ file, message: `cannot be parsed: ${errorText(error)}` }] };
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return { problems: [{ file, message: 'must contain one object with the brokerage settings' }] };
  }
  const interpolated = interpolateEnvironment(raw, env);
  raw = interpolated.value;
  const rawId = (raw as Record<string, unknown>).id;
  const brokerageId = typeof rawId === 'string' ? rawId : undefined;

  const config = plainToInstance(BrokerageConfig, raw);
  const errors = validateSync(config, { whitelist: true, forbidNonWhitelisted: true });
  const problems = problemsFromValidation(errors, file, brokerageId);
  for (const { path: at, variable } of interpolated.unset)
    problems.push({
      file,
      brokerageId,
      path: at,
      message: `names \${${variable}}, which is not set (give it a value, or a default: \${${variable}:-value})`,
      hereOnly: `${variable} is not set here`,
    });
  const stem = basename(path, extname(path));
  if (brokerageId !== undefined && stem !== brokerageId) {
    problems.push({ file, brokerageId, path: 'id', message: `must match the file name ("${stem}")` });
  }
  // Every problem of the file in one run: the mapping and the secrets are checked too wherever
  // their sections are there to check, so fixing one batch never only reveals the next.
  if (config.crm !== undefined && typeof config.crm === 'object')
    problems.push(...mappingProblems(config, file));
  const resolved = secretsOfWhatIsThere(config, raw as Record<string, unknown>, env, file, dirname(path));
  problems.push(...resolved.problems);
  if (problems.length > 0 || !resolved.secrets) return { problems };

  const fingerprint = createHash('sha256')
    .update(JSON.stringify(config))
    .update(JSON.stringify(resolved.secrets))
    .digest('hex');
  return {
    brokerage: { id: config.id, file, config, secrets: resolved.secrets, fingerprint },
    problems: [],
  };
}

// The secrets of the sections the file has (a missing section is already a problem of its own).
function secretsOfWhatIsThere(
  config: BrokerageConfig,
  raw: Record<string, unknown>,
  env: Environment,
  file: string,
  baseDir: string,
): { secrets?: BrokerageSecrets; problems: ConfigProblem[] } {
  const section = (name: string): object => {
    const value = raw[name];
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (config as unknown as Record<string, object>)[name]
      : {};
  };
  const present = ['cashOffer', 'crm', 'webhooks'].filter((name) => {
    const value = raw[name];
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  });
  try {
    const whole = {
      ...config,
      cashOffer: section('cashOffer'),
      crm: section('crm'),
      webhooks: section('webhooks'),
    };
    const resolved = resolveSecrets(whole as BrokerageConfig, env, file, baseDir);
    const problems = resolved.problems.filter((p) => present.some((name) => p.path?.startsWith(`${name}.`)));
    return present.length === 3 ? { ...resolved, problems } : { problems };
  } catch {
    // A section too malformed to read secrets from: its schema problems say what to fix.
    return { problems: [] };
  }
}

// The CRM adapter's own check of the field mapping, run here so a bad override stops the start.
function mappingProblems(config: BrokerageConfig, file: string): ConfigProblem[] {
  if (!config.crm.mapping) return [];
  try {
    parseMappingOverrides(config.crm.mapping.overrides, config.crm.kind);
    return [];
  } catch (error) {
    return [{ file, brokerageId: config.id, path: 'crm.mapping.overrides', message: errorText(error) }];
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message.split('\n')[0] : String(error);
}
