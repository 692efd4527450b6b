// Plays a scenario with a seed and a command log in the browser (through the bridge's tycoon_run)
// and writes the summary JSON; compare_summaries.py compares it with `tycoon run ... --json`.
// With --advisor the advisor is attached on both sides (`tycoon run --advisor on`), so that the log
// can accept its proposals: its profiling and recipe search run the simulator in wasm too.
//
//   node determinism.mjs <url> <scenario.json> <seed> <commands.jsonl> <out.json> [--advisor]
import fs from 'node:fs';
import { launch, log, openGame } from './lib.mjs';

const [url, scenarioPath, seed, commandsPath, outPath, flag] = process.argv.slice(2);
const advisor = flag === '--advisor';
if (!outPath) {
  console.error('usage: node determinism.mjs <url> <scenario.json> <seed> <commands.jsonl> <out.json>');
  process.exit(2);
}
const scenario = fs.readFileSync(scenarioPath, 'utf8');
const commands = fs.readFileSync(commandsPath, 'utf8');
const browser = await launch();
let code = 0;
try {
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
  await openGame(page, url);
  const t0 = Date.now();
  const summary = await page.evaluate(([sc, sd, cm, ad]) => window.tycoon.run(sc, sd, cm, { advisor: ad }),
                                      [scenario, seed, commands, advisor]);
  log(`browser run of ${scenarioPath} (seed ${seed}) took ${Date.now() - t0} ms`);
  fs.writeFileSync(outPath, JSON.stringify(summary, null, 1) + '\n');
  if (summary.error) {
    console.error('[web-test] browser run failed:', summary.error);
    code = 1;
  }
} finally {
  await browser.close();
}
process.exit(code);
