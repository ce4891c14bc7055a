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
