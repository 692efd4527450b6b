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

// Resolves after `n` animation frames of the page; the game draws one frame per animation frame
// (emscripten_set_main_loop on requestAnimationFrame), so input sent before has been seen.
export async function nextFrames(page, n = 2) {
  await page.evaluate((k) => new Promise((resolve) => {
    const step = () => (k-- <= 0 ? resolve() : requestAnimationFrame(step));
    requestAnimationFrame(step);
  }), n);
}

// The widget's rectangle once the layout has settled: the same in two frames in a row (a message
// banner or a new panel can move widgets between the frame that tagged them and the click).
async function settledRect(page, tag, timeoutMs) {
  return waitFor(async () => {
    const a = (await widgets(page))[tag];
    if (!a) return null;
    await nextFrames(page, 2);
    const b = (await widgets(page))[tag];
    return b && a.x0 === b.x0 && a.y0 === b.y0 && a.x1 === b.x1 && a.y1 === b.y1 ? b : null;
  }, 'widget ' + tag, timeoutMs);
}

// A real click (move, press, release) at the center of the widget tagged `tag`, once it is drawn
// and still; the cursor hovers for two frames first, and each of press and release gets its own
// frames (ImGui 1.86 has no input queue).
export async function clickTag(page, tag, timeoutMs = 20000) {
  const r = await settledRect(page, tag, timeoutMs);
  await page.mouse.move(r.cx, r.cy);
  await nextFrames(page, 2);
  await page.mouse.down();
  await nextFrames(page, 2);
  await page.mouse.up();
  await nextFrames(page, 2);
  log('clicked', tag, 'at', Math.round(r.cx), Math.round(r.cy));
}
