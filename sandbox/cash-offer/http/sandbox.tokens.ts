// The key of the first listing agent: POST /__control/seed-active seeds for it by default.
export const AGENT_KEY = Symbol('CashOfferSandbox.agentKey');
