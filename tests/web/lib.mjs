// Shared helpers for the browser tests: launch Debian's Chromium through playwright-core, wait on
// the page's readiness flag, click tagged ImGui widgets with real mouse input.
import { chromium } from 'playwright-core';

export const kChromiumArgs = ['--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader',
  '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run',
  '--disable-quic'];

export async function launch() {
  return chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true, args: kChromiumArgs });
}

export function log(...a) { console.log('[web-test]', ...a); }

export class TestFailure extends Error {}
export function check(cond, what) {
  if (!cond) throw new TestFailure(what);
  log('ok:', what);
}

// Opens the page and waits for window.tycoonReady; returns the ready time in ms since navigation.
export async function openGame(page, url, timeoutMs = 60000) {
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') log('page', m.type() + ':', m.text()); });
  page.on('pageerror', (e) => log('page error:', e.message));
  await page.goto(url, { waitUntil: 'load' });
  await page.waitForFunction(() => window.tycoonReady === true, null, { timeout: timeoutMs, polling: 50 });
  return page.evaluate(() => window.tycoonReadyAt);
}

export const state = (page) => page.evaluate(() => window.tycoon.state());
export const widgets = (page) => page.evaluate(() => window.tycoon.widgets());

// Polls fn() (async) until it returns a truthy value.
export async function waitFor(fn, what, timeoutMs = 20000, everyMs = 50) {
  const t0 = Date.now();
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() - t0 > timeoutMs) throw new TestFailure('timed out waiting for ' + what);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

// A real click (move, press, release) at the center of the widget tagged `tag`, once it is drawn.
export async function clickTag(page, tag, timeoutMs = 20000) {
  const r = await waitFor(async () => (await widgets(page))[tag], 'widget ' + tag, timeoutMs);
  await page.mouse.move(r.cx, r.cy);
  await page.waitForTimeout(50);  // a frame or more with the cursor over the widget (hover first)
  await page.mouse.down();
  await page.waitForTimeout(50);
  await page.mouse.up();
  await page.waitForTimeout(50);
  log('clicked', tag, 'at', Math.round(r.cx), Math.round(r.cy));
}
