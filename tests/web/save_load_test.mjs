// Save + load in the browser ends byte for byte like the uninterrupted game: the same
// scenario, seed and command log as the determinism check, played in the page once straight
// through and once saved and loaded at three hours drawn from the seed (a fresh advisor after
// each load: everything it remembers comes from the save). Writes both final save files; run.sh
// compares them with each other and with the native `tycoon run --save`.
//
//   node save_load_test.mjs <url> <scenario.json> <seed> <commands.jsonl> <out-dir>
import fs from 'node:fs';
import path from 'node:path';
import { launch, log, openGame } from './lib.mjs';

const [url, scenarioPath, seed, commandsPath, outDir] = process.argv.slice(2);
if (!outDir) {
  console.error('usage: node save_load_test.mjs <url> <scenario.json> <seed> <commands.jsonl> <out-dir>');
  process.exit(2);
}
const scenario = fs.readFileSync(scenarioPath, 'utf8');
const commands = fs.readFileSync(commandsPath, 'utf8');
// Three distinct hours of the first day (while the log's commands and the advisor's proposals,
// checks and decisions happen), from a linear congruential stream seeded with the seed.
const lastHour = Math.min(23, 24 * JSON.parse(scenario).days - 1);
let x = BigInt(seed) * 6364136223846793005n + 1442695040888963407n;
const hours = new Set();
while (hours.size < Math.min(3, lastHour)) {
  x = (x * 6364136223846793005n + 1442695040888963407n) & ((1n << 64n) - 1n);
  hours.add(1 + Number((x >> 33n) % BigInt(lastHour)));
}
const saveAt = [...hours].sort((a, b) => a - b);
const browser = await launch();
let code = 0;
try {
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
  await openGame(page, url);
  for (const [name, cuts] of [['straight', []], ['saved', saveAt]]) {
    const t0 = Date.now();
    const summary = await page.evaluate(([sc, sd, cm, at]) => window.tycoon.run(sc, sd, cm, { advisor: true, saveAt: at }),
                                        [scenario, seed, commands, cuts]);
    log(`browser run (${name}, saved and loaded at hours [${cuts.join(', ')}]) took ${Date.now() - t0} ms`);
    if (summary.error || !summary.final_save) {
      console.error(`[web-test] ${name}: ${summary.error || 'no final_save'}`);
      code = 1;
      continue;
    }
    fs.writeFileSync(path.join(outDir, `final.${name}.save`), summary.final_save);
  }
} finally {
  await browser.close();
}
process.exit(code);
