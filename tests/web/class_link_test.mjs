// The browser's class link: the page opened with a class's parameters in its query
// string starts that exact class (its scenario, seed, length and history before play) and shows
// the class id; a bad link leaves the start screen up with the reason; the class is played to its
// end at top speed, saved through the UI and exported; run.sh hands the export to
// `tycoon class submit` / `class report` made from the same parameters.
//   node class_link_test.mjs <url> <out_dir> <query without '?'>
import fs from 'node:fs';
import path from 'node:path';
import { launch, log, check, openGame, state, waitFor, clickTag } from './lib.mjs';

const [url, outDir, query] = process.argv.slice(2);
if (!url || !outDir || !query) {
  console.error('usage: node class_link_test.mjs <url> <out_dir> <query>');
  process.exit(2);
}
const params = new URLSearchParams(query);
const browser = await launch();
let failed = false;
try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 });

  // A bad link: the reason on the start screen, no game, no crash.
  const bad = await context.newPage();
  await openGame(bad, url + '?class=web-class&scenario=' + params.get('scenario') + '&days=0');
  const b = await state(bad);
  check(b.screen === 'start' && b.ui.start_error.includes("'days'"), 'a bad class link is refused with its reason: ' + b.ui.start_error);
  await bad.close();

  // The class link: that exact class.
  const page = await context.newPage();
  await openGame(page, url + '?' + query);
  let s = await state(page);
  check(s.screen === 'game', 'the class link starts a game');
  check(s.ui.label === 'class ' + params.get('class'), 'the game shows the class id: ' + s.ui.label);
  check(String(s.summary.seed) === params.get('seed'), 'the class seed: ' + s.summary.seed);
  if (params.get('history')) {
    check(s.summary.past_hours === 24 * Number(params.get('history')), 'history before play: ' + s.summary.past_hours + ' hours');
  }
  await page.evaluate(() => window.tycoon.command({ type: 'auto_pause', on: false }));
  await clickTag(page, 'time.16x');
  s = await waitFor(async () => { const x = await state(page); return x.summary.finished ? x : null; },
                    'the end of the class game', 300000, 500);
  check(s.summary.hour === 24 * Number(params.get('days')), 'the class length: ' + s.summary.hour + ' hours');
  await clickTag(page, 'topbar.save');
  await clickTag(page, 'save.button');
  await waitFor(async () => (await page.evaluate(() => window.tycoon.saves())).length > 0, 'the save', 20000);
  // Saved and exported under the class's name and the hour (game::save_file_name), never another
  // game's: the game on screen.
  const onScreen = await page.evaluate(() => window.tycoon.currentGame(true));
  const expectedName = params.get('class') + '-h' + s.summary.hour + '.json';
  check(onScreen.ok && onScreen.save_name === expectedName, 'the class game is named by class and hour: ' + onScreen.save_name);
  check((await page.evaluate(() => window.tycoon.saves()))[0] === expectedName, 'the save popup offered that name');
  const exported = await page.evaluate(() => window.tycoon.exportSave(''));
  check(exported.ok, 'the class game exports its save');
  fs.writeFileSync(path.join(outDir, 'class-link-save.json'), exported.text);
} catch (e) {
  failed = true;
  log('FAIL:', e.message);
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
