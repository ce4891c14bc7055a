import type { OfferClocksConfig } from '../../config/brokerage-config.schema';

const HOUR_MS = 3600 * 1000;

// A brokerage's offer clocks in the planner's units.
export interface ClockSettings {
  enabled: boolean;
  // Lead times before expiry at which the agent gets a task, longest first.
  leadsMs: number[];
  // Before expiry, when a still undecided offer gets a task for the broker; null: no escalation.
  escalateMs: number | null;
  brokerOwnerId: string | null;
}

// Defaults for a brokerage whose file says nothing of clocks: 24 h and 2 h tasks, no escalation
// (no broker is known until the operator names one).
export function clockSettings(config: Partial<OfferClocksConfig> | undefined): ClockSettings {
  const leadHours = config?.leadHours && config.leadHours.length > 0 ? config.leadHours : [24, 2];
  const broker = config?.brokerOwnerId?.trim() || null;
  const escalateHours = config?.escalateHours ?? 1;
  return {
    enabled: config?.enabled !== false,
    leadsMs: [...new Set(leadHours.map((h) => Math.round(h * HOUR_MS)))].sort((a, b) => b - a),
    escalateMs: broker === null ? null : Math.round(escalateHours * HOUR_MS),
    brokerOwnerId: broker,
  };
}

// "24h", "2h", "90m": how a lead time is named in a task's key and words.
export function leadLabel(ms: number): string {
  const minutes = Math.round(ms / 60000);
  if (minutes % 60 === 0) return `${minutes / 60}h`;
  if (minutes >= 1) return `${minutes}m`;
  return `${Math.round(ms / 1000)}s`;
}
