import { formatProblem } from '../../config/config-error';
import type { ConfigService } from '../../config/config.service';

// The brokerages a command acts on: the one named by --brokerage, or every enabled one.
export function selectBrokerages(config: ConfigService, brokerageId: string | undefined): string[] {
  if (brokerageId === undefined) return config.enabledBrokerages().map((b) => b.id);
  if (!config.get(brokerageId)) {
    // A file that exists but does not load (a missing secret, an invalid field) is not "unknown":
    // say what keeps it from loading, which is what the operator has to fix.
    const problems = config.unreadyBrokerages().get(brokerageId);
    if (problems) throw new Error(unreadyMessage(brokerageId, problems.map(formatProblem)));
    const known = config.brokerages().map((b) => b.id);
    throw new Error(`no brokerage "${brokerageId}" is configured (known: ${known.join(', ') || 'none'})`);
  }
  return [brokerageId];
}

// For commands that act on every brokerage: the ones whose file did not load, with why, so a command
// that found nothing to do does not end silently as if all were well.
export function unreadyBrokerageMessages(config: ConfigService): string[] {
  return [...config.unreadyBrokerages()].map(([id, problems]) =>
    unreadyMessage(id, problems.map(formatProblem)),
  );
}

function unreadyMessage(brokerageId: string, problems: string[]): string {
  return `brokerage "${brokerageId}" is not loaded: ${problems.join('; ')}`;
}
