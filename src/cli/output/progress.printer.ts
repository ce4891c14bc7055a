// Progress of a long run (a marketplace sweep, a sync --once) on stderr, so stdout stays clean for
// --json. On a terminal it redraws one line; otherwise it prints a line at most every `everyMs`.
export class ProgressPrinter {
  private lastPrinted = Number.NEGATIVE_INFINITY;
  private lastText = '';

  constructor(
    private readonly label: string,
    private readonly stream: NodeJS.WriteStream | NodeJS.WritableStream = process.stderr,
    private readonly now: () => number = () => Date.now(),
    private readonly everyMs = 2000,
  ) {}

  // Matches JobContext.progress / RunOptions.onProgress.
  readonly update = (done: number, total?: number): void => {
    const text = `${this.label}: ${done}${total !== undefined ? `/${total} (${percent(done, total)})` : ''}`;
    if (text === this.lastText) return;
    this.lastText = text;
    if (this.isTty()) {
      // On a terminal: a bar redrawn in place when the total is known, the count otherwise.
      const bar = total !== undefined && total > 0 ? `${progressBar(done, total)} ` : '';
      this.stream.write(`\r\x1b[2K${bar}${text}`);
      return;
    }
    const at = this.now();
    if (at - this.lastPrinted < this.everyMs && (total === undefined || done < total)) return;
    this.lastPrinted = at;
    this.stream.write(`${text}\n`);
  };

  finish(summary?: string): void {
    if (this.isTty() && this.lastText) this.stream.write('\r\x1b[2K');
    if (summary) this.stream.write(`${this.label}: ${summary}\n`);
  }

  private isTty(): boolean {
    return 'isTTY' in this.stream && this.stream.isTTY === true;
  }
}

function percent(done: number, total: number): string {
  return total > 0 ? `${Math.floor((done / total) * 100)}%` : '100%';
}

const BAR_WIDTH = 24;

// `[#########---------------]`: done out of total, in BAR_WIDTH cells.
export function progressBar(done: number, total: number): string {
  const filled = Math.max(0, Math.min(BAR_WIDTH, Math.round((done / total) * BAR_WIDTH)));
  return `[${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}]`;
}
