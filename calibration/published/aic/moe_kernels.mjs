// Writes calibration/published/moe_kernels.json: the routed-expert (MoE) kernel latencies that
// NVIDIA aiconfigurator publishes per GPU, engine and engine version (its
// systems/data/<gpu>/moe/<engine>/<version>/moe_perf.parquet tables), for the expert shapes of the
// models whose published serving points this project compares with (docs/fidelity.md).
//
//   (cd calibration/published/aic && npm ci)      # hyparquet: a parquet reader, from npm
//   node calibration/published/aic/moe_kernels.mjs AIC_GIT_DIR [COMMIT] > calibration/published/moe_kernels.json
//
// AIC_GIT_DIR is a git directory of github.com/ai-dynamo/aiconfigurator (Apache-2.0; the `fetch`
// tool's snapshot is one); COMMIT defaults to the one the serving points were read at. Each table
// is read with `git show`, so the rows are those of that commit exactly. Kept: the shapes below,
// every engine version, the expert-parallel and tensor-parallel splits the serving points use, and
// one token distribution per kernel (aiconfigurator's "balanced", else its mildest power law,
// "power_law_1.01": the simulator spreads tokens over the experts uniformly).
import { execFileSync } from 'node:child_process'
import { parquetReadObjects } from 'hyparquet'
import { compressors } from 'hyparquet-compressors'

const [gitDir, commit = '095f58a51c4ca8e61b66ec108d86f223f8d559ce'] = process.argv.slice(2)
if (!gitDir) {
  console.error('usage: node moe_kernels.mjs AIC_GIT_DIR [COMMIT] > calibration/published/moe_kernels.json')
  process.exit(2)
}
const dataDir = 'aic-core/src/aiconfigurator_core/systems/data'
const chips = { h100_sxm: 'h100', h200_sxm: 'h200', b200_sxm: 'b200', b300_sxm: 'b300' }
// model id -> expert shape and the (moe_tp, moe_ep) splits its published serving points run
const shapes = {
// and the weight formats its checkpoints ship (GPT-OSS: MXFP4 experts, multiplied with bf16 or MXFP8
// activations; DeepSeek-R1: block-scaled FP8, and NVIDIA's NVFP4 checkpoint on Blackwell)
  'gpt-oss-120b': { hidden: 2880, inter: 2880, topk: 4, experts: 128, splits: [[1, 1], [2, 1], [4, 1], [8, 1]],
    dtypes: ['w4a16_mxfp4', 'w4a8_mxfp4_mxfp8'] },
  'deepseek-r1': { hidden: 7168, inter: 2048, topk: 8, experts: 256, splits: [[8, 1], [1, 8]], dtypes: ['fp8_block', 'nvfp4'] },
// MiniMax-M2.5's experts (models/minimax-m2.7.json, the same shape), at the splits of the B300's published vLLM points
// (calibration/published/b300_serving.json): a check of the curves derived from DeepSeek-R1's series on another
// shape (scripts/moe_kernels_check.py), not a series the simulator prices with (calibration/published/engine_kernels.py)
  'minimax-m2.7': { hidden: 3072, inter: 1536, topk: 8, experts: 256, splits: [[1, 1], [2, 1], [4, 1], [8, 1]],
    dtypes: ['fp8_block', 'nvfp4'] },
}
const distributions = ['balanced', 'power_law_1.01']

const git = (...args) => execFileSync('git', ['--git-dir', gitDir, ...args], { maxBuffer: 1 << 30 })
const tables = git('ls-tree', '-r', '--name-only', commit, dataDir).toString().split('\n')
  .filter(p => p.endsWith('/moe_perf.parquet') && !p.includes('wideep'))
  .map(p => ({ path: p, parts: p.slice(dataDir.length + 1).split('/') }))
  .filter(t => t.parts[0] in chips && t.parts[1] === 'moe')

const series = []
for (const t of tables) {
  const [gpu, , engine, version] = t.parts
  const bytes = git('show', `${commit}:${t.path}`)
  const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)
  const table = await parquetReadObjects({ file, compressors })
  const groups = new Map()
  for (const r of table) {
    for (const [model, s] of Object.entries(shapes)) {
      if (Number(r.hidden_size) !== s.hidden || Number(r.inter_size) !== s.inter || Number(r.topk) !== s.topk ||
          Number(r.num_experts) !== s.experts) continue
      const tp = Number(r.moe_tp_size), ep = Number(r.moe_ep_size)
      if (!s.splits.some(([a, b]) => a === tp && b === ep) || !distributions.includes(r.distribution) ||
          !s.dtypes.includes(r.moe_dtype)) continue
      const key = [model, r.kernel_source, r.moe_dtype, tp, ep].join('|')
      if (!groups.has(key)) groups.set(key, [])
      groups.get(key).push({ model, r, tp, ep })
    }
  }
  for (const members of groups.values()) {
    const dist = distributions.find(d => members.some(m => m.r.distribution === d))
    const kept = members.filter(m => m.r.distribution === dist).sort((a, b) => Number(a.r.num_tokens) - Number(b.r.num_tokens))
    // A token count measured twice (two kernel tactics) keeps the faster, as the engine's autotuner does.
    const best = new Map()
    for (const { r } of kept) {
      const n = Number(r.num_tokens), ms = Number(Number(r.latency).toPrecision(6))
      if (!best.has(n) || ms < best.get(n)) best.set(n, ms)
    }
    const { model, r, tp, ep } = kept[0]
    series.push({
      gpu: chips[gpu], engine, engine_version: String(r.version ?? version), model, moe_dtype: r.moe_dtype,
      kernel_source: r.kernel_source, moe_tp: tp, moe_ep: ep, distribution: dist, table: t.path,
      tokens_ms: [...best.entries()],
    })
  }
}
const order = (r) => [r.gpu, r.engine, r.engine_version, r.model, r.moe_dtype, r.kernel_source, String(r.moe_tp).padStart(3),
  String(r.moe_ep).padStart(3)].join('|')
series.sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0))
const doc = {
  about: 'Routed-expert (MoE) kernel latencies published by NVIDIA aiconfigurator, measured by its collector on each GPU ' +
    'inside each engine (the engine\'s own MoE kernel: kernel_source), one MoE layer of the given expert shape for ' +
    '[tokens, latency in milliseconds] pairs. Read by calibration/published/aic/moe_kernels.mjs; compared with the ' +
    'simulator\'s expert op by scripts/moe_kernels_check.py (docs/fidelity.md, "The engines\' own MoE kernels").',
  source: `https://github.com/ai-dynamo/aiconfigurator/tree/${commit}/${dataDir} (Apache-2.0; each row's table names its file)`,
  shapes: Object.fromEntries(Object.entries(shapes).map(([m, s]) => [m, { hidden_size: s.hidden, inter_size: s.inter, topk: s.topk, num_experts: s.experts }])),
  distribution: 'aiconfigurator\'s "balanced" token distribution where the table has it, else "power_law_1.01"',
  series,
}
// One series a line (its token/latency pairs inline), so that a diff shows which series moved.
const lines = series.map(x => '  ' + JSON.stringify(x))
const head = JSON.stringify({ ...doc, series: [] }, null, 1).replace(/"series": \[\]\n\}$/, '')
process.stdout.write(head + '"series": [\n' + lines.join(',\n') + '\n ]\n}\n')
