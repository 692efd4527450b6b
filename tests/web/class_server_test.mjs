// The class server with the browser game (`tycoon class serve --web build-web`), driven as an
// instructor and three students would: the instructor signs in to the instructor page with the
// token, creates a one-day class and types a roster of three there, and hands out the links the
// page shows. Ada plays her link to the end and the page hands the game in by itself; Ben plays
// the same moves from his link (a copy); Cy abandons at hour 6 and presses Hand in. The
// instructor's live leaderboard (the page's own table, refreshed by itself) ranks the two finished
// games above Cy's unfinished one and flags Ada and Ben; the page draws the class report's charts;
// a deadline set on the page refuses a later hand-in; the page's gradebook CSV has a row per
// student with score, stars, profit, SLO, finished and late.
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
  // The instructor's page: sign in with the token, create the class, type the roster.
  const instructorContext = await browser.newContext({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1 });
  const inst = await instructorContext.newPage();
  inst.on('pageerror', (e) => log('instructor page error:', e.message));
  await inst.goto(base + '/instructor#token=' + token, { waitUntil: 'load' });
  const instMsg = (text) => waitFor(async () => ((await inst.textContent('#msg')).includes(text) ? true : null),
                                    'the instructor page to say "' + text + '"', 60000, 100);
  await instMsg('Signed in.');
  await inst.fill('#new-form input[name=class_id]', 'web-101');
  await inst.fill('#new-form input[name=scenario]', 'prices-only');
  await inst.fill('#new-form input[name=seed]', '2026');
  await inst.fill('#new-form input[name=days]', '1');
  await inst.click('#new-form button');
  await instMsg('Class web-101 created.');
  check(true, 'the instructor creates the class on the page');
  await inst.fill('#roster', 'Ada\nBen\nCy');
  await inst.click('#roster-form button');
  await instMsg('3 students added');
  const codeRows = await inst.$$eval('#codes tr', (rows) => rows.slice(1).map((tr) => [...tr.cells].map((c) => c.textContent)));
  check(codeRows.length === 3, 'the page lists a code and a link for each of the three: ' + codeRows.map((x) => x[0]).join(', '));
  const links = Object.fromEntries(codeRows.map(([student, , link]) => [student, link]));
  check(Object.values(links).every((l) => l.startsWith(base + '/?code=')), 'each link is the server address with the code');
  // The live leaderboard as the page shows it, once it has `n` rows (the page refreshes itself).
  const boardRows = (n) => waitFor(async () => {
    const rows = await inst.$$eval('#board tr', (trs) => trs.slice(1).map((tr) => [...tr.cells].map((c) => c.textContent)));
    return rows.length === n ? rows : null;
  }, 'the instructor page to show ' + n + ' students on its leaderboard', 40000, 500);

  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 });
  async function play(name, moves, untilHour) {
    const page = await context.newPage();
    await openGame(page, links[name]);
    let s = await state(page);
    check(s.screen === 'game' && s.ui.label === 'class web-101', name + "'s link starts the class: " + s.ui.label);
    for (const m of moves) await page.evaluate((c) => window.tycoon.command(c), m);
    await page.evaluate(() => window.tycoon.command({ type: 'auto_pause', on: false }));
    // To the end at top speed; a game to abandon is advanced by exactly its hours, clock paused
    // (at top speed a loaded machine can run past the hour before the test sees it).
    if (untilHour >= 24) await clickTag(page, 'time.16x');
    else await page.evaluate((h) => window.tycoon.command({ type: 'advance', hours: h }), untilHour);
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
  await cy.click('#handin-btn');
  b = await waitFor(async () => { const x = await board(); return x.standings.length === 3 ? x : null; },
                    "Cy's unfinished game handed in", 30000, 500);
  const msg = await cy.textContent('#tools-msg');
  check(msg.includes('unfinished at hour 6'), 'Cy is told her game went in unfinished: ' + msg);
  check(b.standings[2].student === 'Cy' && !b.standings[2].counted.finished,
        'an unfinished game ranks below the finished ones: ' + b.standings.map((x) => x.student).join(', '));
  check(b.standings[2].flags.length === 0, 'Cy, who played her own moves, is not flagged');
  // The instructor's live page: the same standings, the flags, the unfinished game, the charts.
  const rows = await boardRows(3);
  check(rows.map((x) => x[1]).join(',') === b.standings.map((x) => x.student).join(','),
        'the live leaderboard ranks ' + rows.map((x) => x[1]).join(', '));
  check(rows.filter((x) => x[10].includes('near-identical')).length === 2, 'the page flags the two copies');
  check(rows[2][6] === 'unfinished, hour 6 of 24', "the page shows Cy's game unfinished: " + rows[2][6]);
  // The board and the charts come from two requests: wait for the charts of all three hand-ins (the
  // copied pair labelled together), not just any charts (an earlier draw may still be on the page).
  const charts = await waitFor(async () => {
    const n = await inst.$$eval('#charts svg', (svgs) => svgs.length);
    const text = await inst.textContent('#charts');
    return n >= 3 && text.includes('Ada = Ben') && text.includes('Cy') ? n : null;
  }, 'the charts of the three hand-ins on the instructor page', 40000, 500);
  const chartText = await inst.textContent('#charts');
  check(charts >= 3 && chartText.includes('Profit so far') && chartText.includes('Market price'),
        'the instructor page draws the class report\'s charts (' + charts + ', with the market price)');
  check(chartText.includes('Ada = Ben'), 'the copied lines are labelled together on the charts');
  check(chartText.includes('Not shown: GPUs rented'), 'the fleet chart, flat under the class\'s locks, is left out with why');
  await inst.screenshot({ path: path.join(outDir, 'instructor-page.png'), fullPage: true });
  // The deadline passes (set on the page): a hand-in is refused with the reason.
  await inst.fill('#deadline', '2020-01-01T00:00:00Z');
  await inst.selectOption('#late', 'refuse');
  await inst.click('#policy-form button');
  await instMsg('Policy saved.');
  check(true, 'the instructor sets a deadline in the past on the page');
  const late = await ben.evaluate(() => window.tycoon.handIn());
  check(late.status === 403 && late.body.error.includes('deadline'), 'a hand-in after the deadline is refused: ' + late.body.error);
  // The gradebook CSV from the page's link.
  const [download] = await Promise.all([inst.waitForEvent('download'), inst.click('#csv')]);
  const csv = fs.readFileSync(await download.path(), 'utf8');
  fs.writeFileSync(path.join(outDir, 'gradebook.csv'), csv);
  const lines = csv.trim().split('\n');
  check(download.suggestedFilename() === 'web-101-gradebook.csv', 'the page downloads ' + download.suggestedFilename());
  check(lines.length === 4 && lines[0].startsWith('student,score,stars,profit_usd,slo_attainment,finished,late'),
        'the gradebook has a header and three students: ' + lines[0]);
  const row = (who) => Object.fromEntries(lines[0].split(',').map((k, i) => [k, lines.find((l) => l.startsWith(who + ',')).split(',')[i]]));
  for (const who of ['Ada', 'Ben', 'Cy']) {
    const x = row(who);
    check(Number(x.score) > 0 && Number(x.stars) >= 0 && x.profit_usd !== '' && Number(x.slo_attainment) > 0,
          who + "'s row: score " + x.score + ', stars ' + x.stars + ', profit ' + x.profit_usd + ', SLO ' + x.slo_attainment);
  }
  check(row('Ada').finished === 'yes' && row('Ada').late === 'no', "Ada's row says finished, not late");
  check(row('Cy').finished === 'no' && row('Cy').late === 'no', "Cy's row says unfinished, not late");
  const apiCsv = await api('GET', '/api/classes/web-101/gradebook.csv');
  check(apiCsv.text === csv, 'the page\'s CSV is the API\'s');
  await ada.close();
  await instructorContext.close();
} catch (e) {
  failed = true;
  log('FAIL:', e.message);
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
