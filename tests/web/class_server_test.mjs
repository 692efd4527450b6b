// The class server with the browser game (`tycoon class serve --web build-web`): the instructor
// creates a one-day class with a roster of three over the API; Ada plays her link to the end and
// the page hands the game in by itself; Ben plays the same moves from his link (a copy); Cy
// abandons at hour 6 and presses Hand in. The leaderboard ranks the two finished games above
// Cy's unfinished one, flags Ada and Ben, refuses a hand-in after the deadline, and the gradebook
// CSV has a row per student.
//   node class_server_test.mjs <base_url> <out_dir> <instructor_token>
import fs from 'node:fs';
import path from 'node:path';
import { launch, log, check, openGame, state, waitFor, clickTag } from './lib.mjs';

const [base, outDir, token] = process.argv.slice(2);
if (!base || !outDir || !token) {
  console.error('usage: node class_server_test.mjs <base_url> <out_dir> <instructor_token>');
  process.exit(2);
}
const auth = { Authorization: 'Bearer ' + token };
async function api(method, p, body, type = 'application/json') {
  const r = await fetch(base + p, { method, headers: { ...auth, 'Content-Type': type }, body });
  const text = await r.text();
  return { status: r.status, text, json: () => JSON.parse(text) };
}
// Prices set at hour 0: Ada's three (enough to compare logs; Ben copies them), Cy's own.
const pricesAt0 = (list) => list.map((p) => ({ type: 'set_prices', model: 'gpt-oss-120b', output_usd_per_mtok: p }));
const adaMoves = pricesAt0([0.19, 0.18, 0.175]);
const cyMoves = pricesAt0([0.16, 0.165, 0.2]);

const browser = await launch();
let failed = false;
try {
  let r = await api('POST', '/api/classes', JSON.stringify({ class_id: 'web-101', scenario: 'prices-only', seed: 2026, days: 1 }));
  check(r.status === 201, 'the instructor creates the class: ' + r.status);
  r = await api('POST', '/api/classes/web-101/roster', 'Ada\nBen\nCy\n', 'text/plain');
  check(r.status === 201, 'the roster of three: ' + r.status);
  const links = Object.fromEntries(r.json().students.map((s) => [s.student, s.link]));

  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 });
  async function play(name, moves, untilHour) {
    const page = await context.newPage();
    await openGame(page, base + links[name]);
    let s = await state(page);
    check(s.screen === 'game' && s.ui.label === 'class web-101', name + "'s link starts the class: " + s.ui.label);
    for (const m of moves) await page.evaluate((c) => window.tycoon.command(c), m);
    await page.evaluate(() => window.tycoon.command({ type: 'auto_pause', on: false }));
    await clickTag(page, 'time.16x');
    s = await waitFor(async () => { const x = await state(page); return x.summary.hour >= untilHour || x.summary.finished ? x : null; },
                      name + ' at hour ' + untilHour, 300000, 200);
    return page;
  }

  // Ada to the end: handed in by the page.
  const ada = await play('Ada', adaMoves, 24);
  const board = async () => (await api('GET', '/api/classes/web-101/leaderboard')).json();
  let b = await waitFor(async () => { const x = await board(); return x.standings.length === 1 ? x : null; },
                        "Ada's game handed in at its end", 30000, 500);
  check(b.standings[0].student === 'Ada' && b.standings[0].counted.finished, 'Ada is ranked, finished');
  // Ben copies her moves.
  const ben = await play('Ben', adaMoves, 24);
  b = await waitFor(async () => { const x = await board(); return x.standings.length === 2 ? x : null; },
                    "Ben's game handed in", 30000, 500);
  check(b.standings.every((row) => row.flags.length === 1), 'Ada and Ben are flagged: ' + b.standings.map((x) => x.flags[0]).join(' | '));
  // Cy stops at hour 6 and hands in on demand.
  const cy = await play('Cy', cyMoves, 6);
  await clickTag(cy, 'time.pause');
  await cy.click('#handin-btn');
  b = await waitFor(async () => { const x = await board(); return x.standings.length === 3 ? x : null; },
                    "Cy's unfinished game handed in", 30000, 500);
  const msg = await cy.textContent('#tools-msg');
  check(msg.includes('unfinished at hour'), 'Cy is told her game went in unfinished: ' + msg);
  check(b.standings[2].student === 'Cy' && !b.standings[2].counted.finished,
        'an unfinished game ranks below the finished ones: ' + b.standings.map((x) => x.student).join(', '));
  check(b.standings[2].flags.length === 0, 'Cy, who played her own moves, is not flagged');
  // The deadline passes: a hand-in is refused with the reason, on the page.
  r = await api('PUT', '/api/classes/web-101/policy', JSON.stringify({ deadline: '2020-01-01T00:00:00Z', late: 'refuse' }));
  check(r.status === 200, 'the instructor sets a deadline in the past');
  const late = await ben.evaluate(() => window.tycoon.handIn());
  check(late.status === 403 && late.body.error.includes('deadline'), 'a hand-in after the deadline is refused: ' + late.body.error);
  r = await api('GET', '/api/classes/web-101/gradebook.csv');
  fs.writeFileSync(path.join(outDir, 'gradebook.csv'), r.text);
  const rows = r.text.trim().split('\n');
  check(rows.length === 4 && rows[0].startsWith('student,score,stars,profit_usd,slo_attainment,finished,late'),
        'the gradebook has a header and three students');
  check(rows.some((l) => l.startsWith('Cy,') && l.includes(',no,no,')), "Cy's row says unfinished, not late: " + rows.find((l) => l.startsWith('Cy,')));
  await ada.close();
} catch (e) {
  failed = true;
  log('FAIL:', e.message);
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
