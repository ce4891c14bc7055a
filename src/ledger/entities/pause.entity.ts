import { Column, Entity, PrimaryColumn } from 'typeorm';

// The job name a pause of a whole brokerage is stored under (no job is called that).
export const WHOLE_BROKERAGE = '*';

// The remotes whose refused credentials pause a brokerage (src/alerts/credential-watch.service.ts).
export const CREDENTIAL_REMOTES = ['cash-offer', 'crm'] as const;
export type CredentialRemote = (typeof CREDENTIAL_REMOTES)[number];

// The job name of the daemon's own pause of a brokerage whose credentials for `remote` are refused:
// apart from the operator's pause ('*'), so resuming one never lifts the other.
export function credentialPauseJob(remote: CredentialRemote): string {
  return `credential:${remote}`;
}

export function credentialOfPause(job: string): CredentialRemote | undefined {
  return CREDENTIAL_REMOTES.find((remote) => credentialPauseJob(remote) === job);
}

// An operator's pause of one brokerage's job, or of all its jobs (job = '*'), or the daemon's own
// pause of a brokerage whose credentials a remote refuses (job = 'credential:<remote>'). Kept in the ledger so a
// restart, a config reload and every worker see the same pause.
@Entity({ name: 'pauses' })
export class Pause {
  @PrimaryColumn({ name: 'brokerage_id', type: 'varchar', length: 64 })
  brokerageId: string;

  @PrimaryColumn({ type: 'varchar', length: 64 })
  job: string;

  // Why, in the operator's words ('' when none was given).
  @Column({ type: 'text', default: '' })
  reason: string;

  @Column({ name: 'paused_at', type: Date })
  pausedAt: Date;
}
