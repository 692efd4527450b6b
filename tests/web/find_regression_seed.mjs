// Finds tutorial seeds whose first benchmark measures a regression, for the play test's second
// run (tests/web/run.sh: PLAY_SEED). Plays the tutorial's steps through the bridge as play_test.mjs
// plays them with clicks (rent and deploy at hour 0, the clock held at hour 4 for the profiler and
// the price, +5% twice on every price, a benchmark of the first proposal the hour it is held for,
// the clock run until its result) and prints each seed's verdict. Not part of the test suite.
//
//   node find_regression_seed.mjs <url> <first_seed> <last_seed>
import { launch, openGame, state, waitFor } from './lib.mjs';

const [url, first, last] = process.argv.slice(2);
const browser = await launch();
const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
await openGame(page, url);
const cmd = async (c) => {
  const r = await page.evaluate((x) => window.tycoon.command(x), c);
  if (!r.ok) throw new Error(JSON.stringify(c) + ': ' + r.error);
};
const until = (pred, what) => waitFor(async () => { const s = await state(page); return pred(s) ? s : null; }, what, 60000, 20);
for (let seed = Number(first); seed <= Number(last); ++seed) {
  await cmd({ type: 'start', scenario: 'tutorial', seed: String(seed) });
  await cmd({ type: 'auto_pause', on: false });
  await cmd({ type: 'rent_gpus', chip: 'h200', contract: 'on_demand', num_gpus: 1 });
  await until((s) => s.summary.contracts >= 1, 'rent');
  await cmd({ type: 'deploy', model: 'gpt-oss-120b', chip: 'h200', segment: 'chat', replicas: 1 });
  await until((s) => s.summary.deployments >= 1, 'deploy');
  await cmd({ type: 'speed', speed: '4x' });
  let s = await until((x) => x.tutorial.id === 'profile' && !x.busy, 'the profile step');
  await cmd({ type: 'view_panel', panel: 'profiler' });
  s = await until((x) => x.tutorial.id === 'price', 'the price step');
  const p = s.state.company.prices['gpt-oss-120b'];
  if (seed === Number(first)) console.log('prices', JSON.stringify(s.state.company.prices));
  const up = (v) => v * 1.05 * 1.05;
  await cmd({ type: 'set_prices', model: 'gpt-oss-120b', input_usd_per_mtok: up(p.input_usd_per_mtok),
              cached_input_usd_per_mtok: up(p.cached_input_usd_per_mtok), output_usd_per_mtok: up(p.output_usd_per_mtok) });
  s = await until((x) => x.tutorial.id === 'check' && !x.busy, 'the check step');
  const a = s.state.inbox[0];
  await cmd({ type: 'check_advice', advice_id: a.id, check: 'benchmark' });
  s = await until((x) => x.tutorial.id === 'decide' && !x.busy, 'the benchmark result');
  await cmd({ type: 'speed', speed: 'paused' });
  const c = s.state.inbox.find((x) => x.id === a.id).checks.at(-1);
  console.log(`seed ${seed}: ${a.id} checked at hour ${c.requested_at_hour}: x${c.measured_speedup.toFixed(4)} ` +
              `(x${c.interval_low.toFixed(4)}-x${c.interval_high.toFixed(4)}) ${c.verdict}; ring ${s.tutorial.target}`);
}
await browser.close();
