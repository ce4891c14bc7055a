import type { Type } from '@nestjs/common';
import type { CommandRunner } from 'nest-commander';
import { AlertsCommand } from './alerts.command';
import { BackupCommand } from './backup.command';
import { ConfirmReceivedCommand } from './confirm-received.command';
import { ErrorsCommand } from './errors.command';
import { HistoryCommand } from './history.command';
import { MigrateLedgerCommand } from './migrate-ledger.command';
import { InboxCommand } from './inbox.command';
import { PauseCommand } from './pause.command';
import { PruneCommand } from './prune.command';
import { RegisterWebhooksCommand } from './register-webhooks.command';
import { ReloadConfigCommand } from './reload-config.command';
import { ReplayCommand } from './replay.command';
import { ResumeCommand } from './resume.command';
import { RunsCommand } from './runs.command';
import { SetupCrmCommand } from './setup-crm.command';
import { StatusCommand } from './status.command';
import { SyncCommand } from './sync.command';
import { ValidateConfigCommand } from './validate-config.command';

// Adding a command: write `<name>.command.ts` (a nest-commander @Command class that injects the
// services it needs and prints through CliOutput) and list it here.

// Commands that need only the config: they run without opening the ledger through TypeORM (backup
// reads the file itself, so it never migrates or creates the ledger it copies; migrate-ledger opens
// the two it moves between itself).
export const CONFIG_COMMANDS: Type<CommandRunner>[] = [
  ValidateConfigCommand,
  ReloadConfigCommand,
  BackupCommand,
  MigrateLedgerCommand,
];
export const CONFIG_COMMAND_NAMES = ['validate-config', 'reload-config', 'backup', 'migrate-ledger'];

// Everything else gets the ledger, the job runner and the flows; by name for the check that the
// ledger exists before any of them opens it (src/cli/ledger-presence.ts).
export const LEDGER_COMMAND_NAMES = [
  'status',
  'alerts',
  'runs',
  'errors',
  'inbox',
  'replay',
  'confirm-received',
  'sync',
  'setup-crm',
  'register-webhooks',
  'prune',
  'pause',
  'resume',
  'history',
];
export const LEDGER_COMMANDS: Type<CommandRunner>[] = [
  StatusCommand,
  AlertsCommand,
  RunsCommand,
  ErrorsCommand,
  ReplayCommand,
  ConfirmReceivedCommand,
  SyncCommand,
  SetupCrmCommand,
  RegisterWebhooksCommand,
  PruneCommand,
  PauseCommand,
  ResumeCommand,
  InboxCommand,
  HistoryCommand,
];
