// The layout in the browser at 1024x640, 1280x800 and 1920x1080: a short game visits
// every main screen (start, dashboard, market, deploy form, deployments, pricing, advisor, debrief)
// with real clicks, and on each screen
//   - no label is cut, squeezed, drawn over another or wrapped inside a number (tycoon.textFit(),
//     ui/text_fit.h), apart from the problems tests/ui/text_fit_known.txt tolerates;
//   - no tagged control lies under the page's Import/Export buttons or under the status strip;
// and Menu → "Save and leave" lists the game on the start screen, where it stays after a reload
// (the browser's saves live in localStorage) and continues with a click.
// Screenshots go to <out_dir>/layout-WxH/.
//
//   node layout_test.mjs <url> <out_dir> <ui-test-layout.json> <text_fit_known.txt>
import fs from 'node:fs';
import path from 'node:path';
import { launch, log, check, openGame, state, widgets, waitFor, clickTag, nextFrames, TestFailure } from './lib.mjs';

const [url, outDir, scenarioPath, knownPath] = process.argv.slice(2);
if (!url || !outDir || !scenarioPath || !knownPath) {
  console.error('usage: node layout_test.mjs <url> <out_dir> <scenario.json> <text_fit_known.txt>');
  process.exit(2);
}
const kSizes = [[1024, 640], [1280, 800], [1920, 1080]];

// "kind|part of the window name|start of the text" per line, '#' comments (ui/text_fit.h).
const known = fs.readFileSync(knownPath, 'utf8').split('\n')
  .map((l) => l.replace(/#.*/, '').trimEnd()).filter((l) => l.length > 0)
  .map((l) => { const [kind, windowPart = '', textStart = ''] = l.split('|'); return { kind, windowPart, textStart, line: l }; });
const isKnown = (p) => known.find((k) => k.kind === p.kind && p.window.includes(k.windowPart) && p.text.startsWith(k.textStart));

const intersects = (a, b) => a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;

const scenarioText = fs.readFileSync(scenarioPath, 'utf8');
const browser = await launch();
const problems = [];
let failed = false;
try {
  for (const [w, h] of kSizes) {
    const size = `${w}x${h}`;
    const dir = path.join(outDir, 'layout-' + size);
    fs.mkdirSync(dir, { recursive: true });
    const context = await browser.newContext({ viewport: { width: w, height: h }, deviceScaleFactor: 1 });
    const page = await context.newPage();
    await openGame(page, url);
    await page.evaluate(() => window.tycoon.command({ type: 'auto_pause', on: false }));

    // Screenshot, then the checks on the same (settled) frame.
    const screen = async (name) => {
      await nextFrames(page, 4);
      await page.screenshot({ path: path.join(dir, name + '.png') });
      const found = await page.evaluate(() => window.tycoon.textFit());
      let tolerated = 0;
      for (const p of found) {
        if (isKnown(p)) { ++tolerated; continue; }
        problems.push(`${size} ${name}: ${p.what}`);
      }
      const tools = await page.evaluate(() => {
        const r = document.getElementById('tools').getBoundingClientRect();
        return { x0: r.left, y0: r.top, x1: r.right, y1: r.bottom, shown: r.width > 0 && r.height > 0 };
      });
      const tags = await widgets(page);
      const status = tags['status.message'];
      for (const [tag, r] of Object.entries(tags)) {
        if (tools.shown && intersects(r, tools)) problems.push(`${size} ${name}: ${tag} lies under the Import/Export buttons`);
        if (status && tag !== 'status.message' && intersects(r, status)) problems.push(`${size} ${name}: the status strip covers ${tag}`);
      }
      log(`${size} ${name}: ${found.length - tolerated} text-fit problem(s), ${tolerated} known; Import/Export ` +
          (tools.shown ? 'shown' : 'hidden'));
    };

    await screen('start');
    const started = await page.evaluate((t) => window.tycoon.importText('ui-test-layout.json', t), scenarioText);
    check(started.ok, `${size}: the layout scenario starts (${started.error || started.name})`);
    await waitFor(async () => (await state(page)).screen === 'game', 'the game screen');
    await screen('dashboard-empty');

    await clickTag(page, 'tab.market');
    await clickTag(page, 'market.rent.h200.on_demand');
    await waitFor(async () => (await state(page)).summary.contracts >= 1, 'a rented H200');
    await screen('market');

    await clickTag(page, 'tab.deployments');
    await clickTag(page, 'deploy.segment.chat');
    await clickTag(page, 'deploy.chip.h200');
    await screen('deploy-form');
    // Down to the Deploy button (the form scrolls on short windows).
    const chip = (await widgets(page))['deploy.chip.h200'];
    await page.mouse.move(chip.cx, chip.cy);
    await page.mouse.wheel(0, 3000);
    await clickTag(page, 'deploy.submit');
    await waitFor(async () => (await state(page)).summary.deployments >= 1, 'a deployment', 30000);
    await waitFor(async () => (await widgets(page))['deploy.done'], 'the form to say it deployed');
    check(!(await widgets(page))['deploy.problem'], `${size}: right after deploying, no "rent more first" warning`);
    await screen('deployed');

    await clickTag(page, 'time.day');
    await waitFor(async () => { const s = await state(page); return s.hour >= 24 && !s.busy; }, 'day 1', 120000, 100);
    await clickTag(page, 'tab.dashboard');
    await screen('dashboard');
    await clickTag(page, 'tab.pricing');
    await screen('pricing');
    await clickTag(page, 'tab.advisor');
    await screen('advisor');

    // Leaving asks first, saves, and the start screen lists the save, also after a reload.
    await clickTag(page, 'topbar.menu');
    await clickTag(page, 'menu.leave');
    await waitFor(async () => (await widgets(page))['start.load.#0'], 'the save listed on the start screen');
    await screen('start-with-save');
    // The page mirrors saves to localStorage every 30 frames: wait for it before reloading.
    await waitFor(() => page.evaluate(() => Object.keys(localStorage).some((k) => k.startsWith('inference-tycoon/v1/saves/'))),
                  'the save to reach localStorage');
    await page.reload({ waitUntil: 'load' });
    await page.waitForFunction(() => window.tycoonReady === true, null, { timeout: 60000 });
    await page.evaluate(() => window.tycoon.command({ type: 'auto_pause', on: false }));
    await clickTag(page, 'start.load.#0');
    const resumed = await waitFor(async () => { const s = await state(page); return s.screen === 'game' ? s : null; }, 'the save to load');
    check(resumed.hour >= 24, `${size}: after a reload the start screen still lists the save, and it continues at hour ${resumed.hour}`);

    await clickTag(page, 'time.day');
    await waitFor(async () => (await widgets(page))['debrief.score'], 'the debrief', 120000, 100);
    await screen('debrief');
    await context.close();
  }
  for (const p of problems) console.error('[web-test] layout:', p);
  check(problems.length === 0, `the layout fits at ${kSizes.map(([w, h]) => `${w}x${h}`).join(', ')} (${problems.length} problem(s))`);
} catch (e) {
  failed = true;
  console.error('[web-test] FAILED:', e instanceof TestFailure ? e.message : e.stack || e);
  try {
    const pages = browser.contexts().flatMap((c) => c.pages());
    if (pages[0]) await pages[0].screenshot({ path: path.join(outDir, 'layout-failure.png') });
  } catch {}
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
