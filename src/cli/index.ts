export { CliModule } from './cli.module';
export { CliOutput } from './output/cli-output';
export { ProgressPrinter } from './output/progress.printer';
export { renderTable, type Column, type Cell } from './output/table';
export { formatCounts, formatDate, formatDuration } from './output/format';
export { parseIds, parseJob, parseLimit, type CommonOptions } from './commands/cli-options';
export { CONFIG_COMMANDS, CONFIG_COMMAND_NAMES, LEDGER_COMMANDS } from './commands';
