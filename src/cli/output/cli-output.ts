// Where commands print: results to stdout (tables, or JSON for scripts), problems to stderr.
// A class so tests and future commands share one place that decides the format.
export class CliOutput {
  constructor(
    private readonly out: NodeJS.WritableStream = process.stdout,
    private readonly err: NodeJS.WritableStream = process.stderr,
  ) {}

  print(text: string): void {
    this.out.write(text.endsWith('\n') ? text : `${text}\n`);
  }

  json(value: unknown): void {
    this.out.write(`${JSON.stringify(value, null, 2)}\n`);
  }

  error(text: string): void {
    this.err.write(text.endsWith('\n') ? text : `${text}\n`);
  }

  // Sets the exit code without cutting Nest's shutdown short.
  fail(text: string, code = 1): void {
    this.error(text);
    process.exitCode = code;
  }
}

// `cli runs | head` closes the pipe after ten lines; the next write fails with EPIPE. That is the
// reader saying "enough", not an error: leave at once and quietly, as Unix tools do.
export function exitQuietlyOnBrokenPipe(): void {
  for (const stream of [process.stdout, process.stderr])
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(0);
      throw error;
    });
}
