// The freeze test: the game must never hold a frame, whatever the simulation is doing.
// For the tutorial (after renting and deploying, so the advisor has something to advise), campaign
// level 1 and the sandbox, with the advisor attached: start the scenario, run at 16x for a while,
// and record every gap between animation frames from the page's own requestAnimationFrame clock
// (independent of the game's statistics, over the whole run: nothing is reset). Fails on any gap
// over the limit. The game's own statistics (sliced simulations, worst tick) go to the report.
//
//   node freeze_test.mjs <url> <out_dir>
// Env: TYCOON_FREEZE_SECONDS (per scenario, default 20), TYCOON_MAX_FRAME_GAP_MS (default 250).
import fs from 'node:fs';
import path from 'node:path';
import { launch, log, check, openGame, waitFor, TestFailure } from './lib.mjs';

const [url, outDir] = process.argv.slice(2);
if (!url || !outDir) {
  console.error('usage: node freeze_test.mjs <url> <out_dir>');
  process.exit(2);
}
fs.mkdirSync(outDir, { recursive: true });
const kSeconds = Number(process.env.TYCOON_FREEZE_SECONDS || 20);
const kMaxGapMs = Number(process.env.TYCOON_MAX_FRAME_GAP_MS || 250);

// The game's light status (hour, inbox size) without the whole state dump.
const status = (page) => page.evaluate(() => {
  const s = window.tycoon.state();
  return { hour: s.hour, screen: s.screen, finished: s.summary ? s.summary.finished : false,
           proposals: s.state && s.state.inbox ? s.state.inbox.length : 0 };
});

// The tutorial holds the clock while a step waits for an action: a player who does each step as it
// comes (through the bridge here; play_test.mjs does it with clicks) keeps it running.
async function tutorialPlayer(page) {
  const x = await page.evaluate(() => window.tycoon.state());
  const t = x.tutorial;
  if (!t || !t.holds_clock) return;
  const inbox = (x.state && x.state.inbox) || [];
  const pending = inbox.filter((a) => a.status === 'pending');
  const checked = pending.find((a) => (a.checks || []).length > 0);
  const cmd = {
    profile: { type: 'view_panel', panel: 'profiler' },
    price: { type: 'set_prices', model: 'gpt-oss-120b', output_usd_per_mtok: 0.66 },
    check: pending[0] && { type: 'check_advice', advice_id: pending[0].id, check: 'benchmark' },
    decide: checked && { type: 'reject_advice', advice_id: checked.id },
  }[t.id];
  if (cmd) await page.evaluate((c) => window.tycoon.command(c), cmd);
}

const scenarios = [
  { name: 'tutorial', play: tutorialPlayer, setup: [
    { type: 'rent_gpus', chip: 'h200', contract: 'on_demand', num_gpus: 2 },
    { type: 'deploy', model: 'gpt-oss-120b', chip: 'h200', replicas: 2 }] },
  { name: 'campaign-01-thin-margin', setup: [] },
  { name: 'sandbox', setup: [
    { type: 'rent_gpus', chip: 'h200', contract: 'on_demand', num_gpus: 8 },
    { type: 'deploy', model: 'gpt-oss-120b', chip: 'h200', segment: 'chat', replicas: 4 },
    { type: 'rent_gpus', chip: 'mi300x', contract: 'on_demand', num_gpus: 8 },
    { type: 'deploy', model: 'qwen3-coder-480b', chip: 'mi300x', segment: 'coding', replicas: 1 }] },
];

const report = { url, max_gap_limit_ms: kMaxGapMs, seconds_per_scenario: kSeconds, scenarios: [] };
const browser = await launch();
let failed = false;
try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 });
  const page = await context.newPage();
  await openGame(page, url);
  await page.evaluate(() => window.tycoon.command({ type: 'auto_pause', on: false }));  // frame times at a running clock
  for (const sc of scenarios) {
    const started = await page.evaluate((n) => window.tycoon.command({ type: 'start', scenario: n }), sc.name);
    check(started.ok, `started ${sc.name}: ${started.message || started.error}`);
    for (const c of sc.setup) {
      const r = await page.evaluate((x) => window.tycoon.command(x), c);
      check(r.ok, `${sc.name}: ${c.type} submitted`);
    }
    // The page's own frame clock, from now on.
    await page.evaluate(() => {
      window.__gaps = [];
      window.__last = performance.now();
      window.__recording = true;
      const f = (t) => {
        if (!window.__recording) return;
        window.__gaps.push(t - window.__last);
        window.__last = t;
        requestAnimationFrame(f);
      };
      requestAnimationFrame(f);
    });
    await page.evaluate(() => window.tycoon.command({ type: 'speed', speed: '16x' }));
    const h0 = (await status(page)).hour;
    const t0 = Date.now();
    let s = await waitFor(async () => {
      if (sc.play) await sc.play(page);
      const x = await status(page);
      return x.finished || Date.now() - t0 >= kSeconds * 1000 ? x : null;
    }, sc.name + ' at 16x', kSeconds * 1000 + 60000, 1000);
    const seconds = (Date.now() - t0) / 1000;
    await page.evaluate(() => window.tycoon.command({ type: 'speed', speed: 'paused' }));
    const gaps = await page.evaluate(() => { window.__recording = false; return window.__gaps; });
    const stats = await page.evaluate(() => window.tycoon.stats());
    const sorted = [...gaps].sort((a, b) => a - b);
    const row = {
      scenario: sc.name, seconds, game_hours: s.hour - h0, proposals: s.proposals, frames: gaps.length,
      frame_gap_ms: { median: sorted[Math.floor(sorted.length / 2)] || 0, p99: sorted[Math.floor(sorted.length * 0.99)] || 0,
                      max: sorted[sorted.length - 1] || 0 },
      gaps_over_100ms: gaps.filter((g) => g > 100).length,
      gaps_over_limit: gaps.filter((g) => g > kMaxGapMs).length,
      runner: stats.runner || null,
    };
    report.scenarios.push(row);
    log(`${sc.name}: ${row.game_hours} game hours in ${seconds.toFixed(1)} s, ${row.proposals} advisor proposal(s), ` +
        `${row.frames} frames; gap median ${row.frame_gap_ms.median.toFixed(1)} ms, p99 ${row.frame_gap_ms.p99.toFixed(1)} ms, ` +
        `max ${row.frame_gap_ms.max.toFixed(1)} ms; ${row.gaps_over_100ms} over 100 ms` +
        (row.runner ? `; ${row.runner.simulations_sliced} simulations sliced over frames, worst tick ${row.runner.tick_ms_max.toFixed(1)} ms (${row.runner.tick_max_what})` : ''));
    await page.screenshot({ path: path.join(outDir, `freeze-${sc.name}.png`) });
    check(row.game_hours >= 24, `${sc.name}: the clock ran at 16x (${row.game_hours} game hours)`);
    check(row.proposals >= 1, `${sc.name}: the advisor posted (${row.proposals} proposal(s))`);
    // Hidden truths never reach the page: proposals carry claims, not what they really do.
    const full = await page.evaluate(() => window.tycoon.state());
    const leaks = (full.state.inbox || []).filter((a) => a.effect && ('speedup' in a.effect || 'reputation_hit' in a.effect))
      .concat(((full.state.company || {}).deployments || []).filter((d) => 'speedup' in d));
    check(leaks.length === 0 && !('rng' in full.state), `${sc.name}: tycoon.state() carries no hidden truth (${leaks.length} leaking proposal(s))`);
    check(row.gaps_over_limit === 0, `${sc.name}: no frame gap over ${kMaxGapMs} ms (max ${row.frame_gap_ms.max.toFixed(1)} ms)`);
  }
  // Alarms stop the clock: with auto-pause on (the default for players), the advisor's first
  // proposal pauses campaign level 1 and says so.
  await page.evaluate(() => window.tycoon.command({ type: 'auto_pause', on: true }));
  const started = await page.evaluate(() => window.tycoon.command({ type: 'start', scenario: 'campaign-01-thin-margin' }));
  check(started.ok, 'restarted campaign level 1 with auto-pause on');
  await page.evaluate(() => window.tycoon.command({ type: 'speed', speed: '16x' }));
  const paused = await waitFor(async () => {
    const x = await page.evaluate(() => window.tycoon.state());
    const msg = (x.ui.messages || []).find((m) => m.text.startsWith('Paused: '));
    return x.ui.speed === 'paused' && msg ? { hour: x.hour, msg: msg.text } : null;
  }, 'an alarm to pause the clock', 60000, 250);
  check(paused.hour <= 4, `an alarm paused the clock at hour ${paused.hour}: "${paused.msg.slice(0, 80)}…"`);
  await page.screenshot({ path: path.join(outDir, 'freeze-alarm-paused.png') });
} catch (e) {
  failed = true;
  console.error('[web-test] FAILED:', e instanceof TestFailure ? e.message : e.stack || e);
} finally {
  await browser.close();
}
report.ok = !failed;
fs.writeFileSync(path.join(outDir, 'freeze-report.json'), JSON.stringify(report, null, 1));
log('report', path.join(outDir, 'freeze-report.json'));
process.exit(failed ? 1 : 0);
