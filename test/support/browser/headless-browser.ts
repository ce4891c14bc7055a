import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const DRIVER = join(__dirname, 'browser-driver.mjs');

// One headless Chromium page, driven through browser-driver.mjs in a child process. Every call waits
// for the page's answer; close() ends the browser and the child (call it in afterAll).
export class HeadlessBrowser {
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private stderr = '';

  private constructor(private readonly child: ChildProcess) {}

  static async launch(timeoutMs = 60_000): Promise<HeadlessBrowser> {
    const child = spawn(process.execPath, [DRIVER], { stdio: ['pipe', 'pipe', 'pipe'] });
    const browser = new HeadlessBrowser(child);
    child.stderr.on('data', (chunk: Buffer) => (browser.stderr += chunk.toString()));
    const ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`the browser did not start: ${browser.stderr}`)),
        timeoutMs,
      );
      child.once('exit', (code) =>
        reject(new Error(`the browser driver exited (${code}): ${browser.stderr}`)),
      );
      createInterface({ input: child.stdout }).on('line', (line) => {
        const message = JSON.parse(line) as {
          ready?: boolean;
          id?: number;
          ok?: boolean;
          value?: unknown;
          error?: string;
        };
        if (message.ready) {
          clearTimeout(timer);
          resolve();
          return;
        }
        const pending = browser.waiting.get(message.id!);
        browser.waiting.delete(message.id!);
        if (message.ok) pending?.resolve(message.value);
        else pending?.reject(new Error(message.error));
      });
    });
    await ready;
    return browser;
  }

  goto(url: string): Promise<number | null> {
    return this.call('goto', url);
  }

  // The page's visible text, as a reader (or a screen reader) gets it.
  text(): Promise<string> {
    return this.call('text');
  }

  url(): Promise<string> {
    return this.call('url');
  }

  type(selector: string, text: string): Promise<void> {
    return this.call('type', selector, text);
  }

  // Clicks a submit button and waits for the page the redirect lands on.
  submit(selector: string): Promise<number | null> {
    return this.call('submit', selector);
  }

  count(selector: string): Promise<number> {
    return this.call('count', selector);
  }

  attribute(selector: string, name: string): Promise<string | null> {
    return this.call('attribute', selector, name);
  }

  texts(selector: string): Promise<string[]> {
    return this.call('texts', selector);
  }

  viewport(width: number, height: number): Promise<void> {
    return this.call('viewport', width, height);
  }

  // The laid-out width of the page (more than the viewport: it scrolls sideways).
  pageWidth(): Promise<number> {
    return this.call('pageWidth');
  }

  // Whether the first element matching is on screen now.
  inView(selector: string): Promise<boolean> {
    return this.call('inView', selector);
  }

  screenshot(path: string): Promise<string> {
    return this.call('screenshot', path);
  }

  async close(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    await this.call('close').catch(() => this.child.kill('SIGKILL'));
    await exited;
  }

  private call<T>(op: string, ...args: unknown[]): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.child.stdin!.write(`${JSON.stringify({ id, op, args })}\n`);
    });
  }
}
