// Headless Chromium from npm (puppeteer-core + @sparticuz/chromium, which ships the browser inside
// its package), driven over stdin/stdout in JSON lines. A child process because both packages are
// ES modules that jest's CommonJS runtime cannot load; see headless-browser.ts for the other end.
import chromium from '@sparticuz/chromium';
import puppeteer from 'puppeteer-core';
import { createInterface } from 'node:readline';

const browser = await puppeteer.launch({
  executablePath: await chromium.executablePath(),
  args: chromium.args,
  headless: true,
});
const page = await browser.newPage();
await page.setViewport({ width: 1280, height: 900 });

// Every step that can navigate waits for the navigation it causes (a form post and its redirect).
const ops = {
  async goto(url) {
    const response = await page.goto(url, { waitUntil: 'load' });
    return response?.status() ?? null;
  },
  async text() {
    return page.evaluate(() => document.body.innerText);
  },
  async url() {
    return page.url();
  },
  async type(selector, text) {
    await page.type(selector, text);
    return null;
  },
  async submit(selector) {
    const [response] = await Promise.all([
      page.waitForNavigation({ waitUntil: 'load' }),
      page.click(selector),
    ]);
    return response?.status() ?? null;
  },
  async count(selector) {
    return page.$$eval(selector, (nodes) => nodes.length);
  },
  async attribute(selector, name) {
    return page.$eval(selector, (node, attr) => node.getAttribute(attr), name);
  },
  async texts(selector) {
    return page.$$eval(selector, (nodes) => nodes.map((n) => n.innerText.replace(/\s+/g, ' ').trim()));
  },
  async viewport(width, height) {
    await page.setViewport({ width, height });
    return null;
  },
  // How wide the page is laid out (wider than the viewport: the reader scrolls sideways).
  async pageWidth() {
    return page.evaluate(() => document.documentElement.scrollWidth);
  },
  // Whether the element is within the visible part of the page now.
  async inView(selector) {
    return page.$eval(selector, (node) => {
      const box = node.getBoundingClientRect();
      return box.bottom > 0 && box.top < window.innerHeight;
    });
  },
  async screenshot(path) {
    await page.screenshot({ path, fullPage: true });
    return path;
  },
  async close() {
    await browser.close();
    return null;
  },
};

const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
send({ ready: true });
for await (const line of createInterface({ input: process.stdin })) {
  const { id, op, args } = JSON.parse(line);
  try {
    send({ id, ok: true, value: await ops[op](...args) });
  } catch (error) {
    send({ id, ok: false, error: error instanceof Error ? error.message : String(error) });
  }
  if (op === 'close') break;
}
process.exit(0);
