import { Injectable } from '@nestjs/common';
import type { LoadedBrokerage } from '../config/config.loader';
import { CASH_OFFER_CRM_SCHEMA, CrmError, type CrmPort } from '../crm';
import { CrmPortFactory } from './crm-port.factory';
import { listingPipelineProblems } from './listing-pipeline.check';
import { listingTriggerProperty } from './listing-trigger';
import { triggerPropertyFinding } from './trigger-property.check';

// One thing a brokerage's CRM says is wrong with its file or its token (validate-config --online).
export interface CrmOnlineProblem {
  brokerageId: string;
  file: string;
  // The key of the file the problem is about; absent for the token as a whole, and for a question
  // the CRM could not be asked (a network or auth failure is never taken for a missing id).
  path?: string;
  problem: string;
  missingScopes?: string[];
  // An id (or property name) the file names that the CRM lacks, and those it has.
  unknownId?: string;
  existing?: { id: string; label: string }[];
}

// Something the CRM lacks that a later step supplies (setup-crm): said, but not a failure.
export interface CrmOnlineWarning {
  brokerageId: string;
  file: string;
  path: string;
  warning: string;
  unknownId: string;
  existing: { id: string; label: string }[];
}

export interface CrmOnlineFindings {
  problems: CrmOnlineProblem[];
  warnings: CrmOnlineWarning[];
}

// The deal properties setup-crm creates: missing before its first run, not a mistake in the file.
const SETUP_CREATES: ReadonlySet<string> = new Set(
  CASH_OFFER_CRM_SCHEMA.properties.filter((p) => p.kind === 'deal').map((p) => p.name),
);

// Asks a brokerage's CRM, through the port, what no offline check can know: whether the token has
// the permissions the flows need, whether the pipeline and stage ids the file names exist, and
// whether its deals have the trigger property. Every problem of the brokerage at once; a token the
// CRM refuses is said once, not once per question.
@Injectable()
export class CrmOnlineCheck {
  constructor(private readonly crm: CrmPortFactory) {}

  async check(brokerage: LoadedBrokerage): Promise<CrmOnlineFindings> {
    const { id: brokerageId, file } = brokerage;
    const found: CrmOnlineFindings = { problems: [], warnings: [] };
    const problem = (p: Omit<CrmOnlineProblem, 'brokerageId' | 'file'>): void => {
      found.problems.push({ brokerageId, file, ...p });
    };
    let port: CrmPort;
    try {
      // An operator waits on this: a CRM that does not answer is said after one retry, not after
      // the daemon's patient backoff (about half a minute).
      port = this.crm.create(brokerage, { maxTransientRetries: 1 });
      const report = await port.checkAccess();
      if (report.missing.length > 0) {
        problem({
          problem: `the CRM token lacks scope ${report.missing.join(', ')}`,
          missingScopes: report.missing,
        });
      } else if (report.problem && report.checked) {
        problem({ problem: report.problem });
      }
    } catch (error) {
      problem({ problem: errorText(error) });
      return found;
    }
    const accessProblem = found.problems.length > 0;
    const listings = brokerage.config.crm.pipelines.listings;
    const kind = brokerage.config.crm.kind;
    // Reads the CRM did not answer: a network or auth failure, never taken for a missing id.
    const unread: { what: string; error: unknown }[] = [];
    try {
      const pipelines = await port.listPipelines('deal');
      for (const p of listingPipelineProblems(listings, pipelines, kind))
        problem({ path: p.path, problem: `${p.path} ${p.message}`, unknownId: p.id, existing: p.existing });
    } catch (error) {
      unread.push({ what: 'deal pipelines', error });
    }
    const trigger = listingTriggerProperty(listings);
    if (trigger !== undefined) {
      try {
        const lookup = await port.findProperty('deal', trigger);
        const finding = lookup && triggerPropertyFinding(listings, lookup, kind, brokerageId, SETUP_CREATES);
        if (finding?.severity === 'warning')
          found.warnings.push({
            brokerageId,
            file,
            path: finding.path,
            warning: `${finding.path} ${finding.message}`,
            unknownId: finding.id,
            existing: finding.existing,
          });
        else if (finding)
          problem({
            path: finding.path,
            problem: `${finding.path} ${finding.message}`,
            unknownId: finding.id,
            existing: finding.existing,
          });
      } catch (error) {
        unread.push({
          what: `deal properties, so crm.pipelines.listings.triggerProperty '${trigger}' is unchecked`,
          error,
        });
      }
    }
    // Said already when the token lacks a scope (a refused read is its consequence); one failure of
    // the same kind behind both reads (the CRM unreachable) is said once.
    if (accessProblem) return found;
    const sameCause = unread.length === 2 && codeOf(unread[0].error) === codeOf(unread[1].error);
    if (sameCause)
      problem({
        problem: `could not read the CRM's deal pipelines or properties, so the pipeline, stage and trigger property are unchecked: ${errorText(unread[0].error)}`,
      });
    else
      for (const u of unread)
        problem({ problem: `could not read the CRM's ${u.what}: ${errorText(u.error)}` });
    return found;
  }
}

function codeOf(error: unknown): string | undefined {
  return error instanceof CrmError ? error.code : undefined;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
