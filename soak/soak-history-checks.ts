import type { OutboxRow } from './soak-ledger';
import type { StoredCounter, StoredOffer } from './soak-service';
import type { Violation } from './soak-checks';

// One decision-history entry as `cli history --export` writes it (JSON).
export interface ExportedEntry {
  record: string;
  kind: string;
  outcome: string;
  detail: { commandId?: unknown; operation?: unknown } | null;
}

// What the operator's audit trail must say after the kills (docs/crm-mapping.md, "Decision
// history": "the command's answer from the service, the write-back"): each command the ledger
// holds as done has exactly one `done` entry (a kill between the answer and its entry would leave
// none; two would tell of a second send that never was); each offer the service holds is told as
// shown on a CRM record; each counter the service holds is told on its offer's history as sent and
// done; and `history --verify` finds the chain whole.
export function historyWrong(
  entries: readonly ExportedEntry[],
  outbox: readonly OutboxRow[],
  offers: readonly StoredOffer[],
  counters: readonly StoredCounter[],
  verify: { code: number; output: string },
): Violation[] {
  const violations: Violation[] = [];
  const doneEntries = new Map<number, number>();
  for (const entry of entries) {
    const id = entry.detail?.commandId;
    if (entry.outcome === 'done' && typeof id === 'number')
      doneEntries.set(id, (doneEntries.get(id) ?? 0) + 1);
  }
  for (const command of outbox) {
    if (command.state !== 'done') continue;
    const told = doneEntries.get(command.id) ?? 0;
    if (told !== 1)
      violations.push({
        kind: 'history',
        record: `command ${command.id} (${command.operation}, ${command.record_ref})`,
        detail: `done in the ledger, but the decision history has ${told} 'done' entries for it`,
      });
  }
  const shownOn = new Set(
    entries.filter((e) => e.kind === 'record_shown' || e.kind === 'cascade').map((e) => e.record),
  );
  for (const offer of offers) {
    const record = `offer:${offer.offer_id}`;
    if (!shownOn.has(record))
      violations.push({
        kind: 'history',
        record,
        detail: `the service holds offer ${offer.offer_id}, but its history tells no CRM record shown for it`,
      });
  }
  const counterSentOn = new Set(
    entries
      .filter(
        (e) => e.kind === 'command_sent' && e.outcome === 'done' && e.detail?.operation === 'counter_offer',
      )
      .map((e) => e.record),
  );
  for (const counter of counters) {
    const record = `offer:${counter.offer_id}`;
    if (!counterSentOn.has(record))
      violations.push({
        kind: 'history',
        record,
        detail: `the service holds counter ${counter.counter_offer_id} on it, but its history tells no counter_offer sent and done`,
      });
  }
  if (verify.code !== 0)
    violations.push({
      kind: 'history',
      record: 'hash chain',
      detail: `history --verify exited ${verify.code}: ${verify.output.trim()}`,
    });
  return violations;
}
