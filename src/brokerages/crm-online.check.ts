import { Injectable } from '@nestjs/common';
import type { LoadedBrokerage } from '../config/config.loader';
import { CrmPortFactory } from './crm-port.factory';
import { listingPipelineProblems } from './listing-pipeline.check';

// One thing a brokerage's CRM says is wrong with its file or its token (validate-config --online).
export interface CrmOnlineProblem {
  brokerageId: string;
  file: string;
  // The key of the file the problem is about; absent for the token as a whole.
  path?: string;
  problem: string;
  missingScopes?: string[];
  // An id the file names that the CRM lacks, and those it has.
  unknownId?: string;
  existing?: { id: string; label: string }[];
}

// Asks a brokerage's CRM, through the port, what no offline check can know: whether the token has
// the permissions the flows need, and whether the pipeline and stage ids the file names exist. Every
// problem of the brokerage at once; a token the CRM refuses is said once, not once per question.
@Injectable()
export class CrmOnlineCheck {
  constructor(private readonly crm: CrmPortFactory) {}

  async check(brokerage: LoadedBrokerage): Promise<CrmOnlineProblem[]> {
    const { id: brokerageId, file } = brokerage;
    const found: CrmOnlineProblem[] = [];
    let tokenRefused = false;
    let port;
    try {
      port = this.crm.create(brokerage);
      const report = await port.checkAccess();
      if (report.missing.length > 0) {
        found.push({
          brokerageId,
          file,
          problem: `the CRM token lacks scope ${report.missing.join(', ')}`,
          missingScopes: report.missing,
        });
      } else if (report.problem && report.checked) {
        found.push({ brokerageId, file, problem: report.problem });
      }
    } catch (error) {
      tokenRefused = true;
      found.push({ brokerageId, file, problem: errorText(error) });
    }
    if (!port || tokenRefused) return found;
    try {
      const pipelines = await port.listPipelines('deal');
      for (const p of listingPipelineProblems(
        brokerage.config.crm.pipelines.listings,
        pipelines,
        brokerage.config.crm.kind,
      ))
        found.push({
          brokerageId,
          file,
          path: p.path,
          problem: `${p.path} ${p.message}`,
          unknownId: p.id,
          existing: p.existing,
        });
    } catch (error) {
      // Said already when the token lacks a scope: the refusal here is its consequence.
      if (found.length === 0)
        found.push({
          brokerageId,
          file,
          problem: `could not read the CRM's deal pipelines: ${errorText(error)}`,
        });
    }
    return found;
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
