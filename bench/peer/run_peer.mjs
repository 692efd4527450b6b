// Runs the peer simulator @doublewordai/inference-lab (wasm, under Node) on the
// workload of bench/peer/compare.sh and prints one JSON line per N.
// Usage: node run_peer.mjs [N ...]   (default: 1000 2000 16000)
// CPU = process.cpuUsage() delta (user+system, all Node threads) around the
// run_simulation() call only; module load + wasm instantiation are reported
// separately as init_cpu_s.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { initSync, run_simulation } from '@doublewordai/inference-lab';

const require = createRequire(import.meta.url);
const pkgPath = require.resolve('@doublewordai/inference-lab/package.json');
const pkg = JSON.parse(readFileSync(pkgPath, 'utf8'));

const cpuS = (u) => (u.user + u.system) / 1e6;

const c0 = process.cpuUsage();
const w0 = process.hrtime.bigint();
initSync({ module: readFileSync(new URL('inference_lab_bg.wasm', 'file://' + pkgPath)) });
const initCpu = cpuS(process.cpuUsage(c0));
const initWall = Number(process.hrtime.bigint() - w0) / 1e9;

// One H200 SXM, bf16, Llama-3.1-8B, vLLM-like scheduler, closed loop of 64
// users, ISL uniform in [819, 1024] (ours: random ISL drawn in [0.8, 1] x 1024),
// OSL fixed 1024 (ours: OSL is the nominal value).
function config(n) {
  return {
    hardware: {
      name: 'H200 SXM',
      compute_flops: 989e12,      // dense bf16 (same as our hardware_db h200)
      memory_bandwidth: 4.8e12,   // 4.8 TB/s
      memory_capacity: 141e9,     // 141 GB
      gpu_memory_utilization: 0.9,
      bytes_per_param: 2,         // bf16 weights and KV
    },
    model: {
      name: 'Llama-3.1-8B',
      num_parameters: 8030000000,
      num_layers: 32,
      hidden_dim: 4096,
      num_heads: 32,
      num_kv_heads: 8,
      max_seq_len: 8192,
    },
    scheduler: {
      max_num_batched_tokens: 8192, // ours (vllm recipe): 8192
      max_num_seqs: 256,            // ours (vllm recipe): 256
      policy: 'fcfs',
      enable_chunked_prefill: true,
      block_size: 16,
    },
    workload: {
      arrival_pattern: 'closed_loop',
      arrival_rate: 1.0,            // required, unused by closed_loop
      num_concurrent_users: 64,
      num_requests: n,
      input_len_dist: { type: 'uniform', min: 819, max: 1024 },
      output_len_dist: { type: 'fixed', value: 1024 },
      seed: 42,
    },
    simulation: { log_interval: 1000000000 }, // no periodic logging (a no-op in wasm anyway)
  };
}

const ns = process.argv.slice(2).map(Number);
for (const n of ns.length ? ns : [1000, 2000, 16000]) {
  const cfg = JSON.stringify(config(n));
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  const r = run_simulation(cfg);
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  const cpu = cpuS(process.cpuUsage(cpu0));
  const m = r.metrics;
  console.log(JSON.stringify({
    sim: 'inference-lab', version: pkg.version, n,
    cpu_s: cpu, wall_s: wall, init_cpu_s: initCpu, init_wall_s: initWall,
    simulated_s: m.total_time, completed: m.completed_requests,
    output_tok_per_s: m.output_tokens_per_sec,
    ttft_p50_ms: m.ttft_p50, tpot_mean_ms: m.per_token_mean,  // already ms
    e2e_p50_ms: m.e2e_p50,
  }));
}
