"""Shared helpers for the calibration runner: environment, JSONL writer, timing, time guard.

Units follow the project style: seconds (`_s`), bytes, FLOP counts; no GB or TFLOP/s in rows.
"""

import datetime
import json
import os
import statistics
import subprocess
import sys
import time
import traceback

import torch

# NVLink multicast must stay off on the lent machines (see the device notes); children inherit this.
SAFE_ENV = {
    "NCCL_NVLS_ENABLE": "0",
    "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1",
    "NVSHMEM_DISABLE_NVLS": "1",
}


def set_safe_env():
    for k, v in SAFE_ENV.items():
        os.environ[k] = v


def log(*args):
    print(*args, flush=True)


def log_exc(where):
    log(f"!! {where}: {traceback.format_exc(limit=4)}")


def utc_now_iso():
    return datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat()


_DRIVER = None


def driver_version():
    global _DRIVER
    if _DRIVER is None:
        try:
            out = subprocess.run(
                ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                capture_output=True, text=True, timeout=20)
            _DRIVER = out.stdout.strip().splitlines()[0].strip()
        except Exception:  # noqa: BLE001 - best effort
            try:
                import pynvml  # type: ignore
                pynvml.nvmlInit()
                v = pynvml.nvmlSystemGetDriverVersion()
                _DRIVER = v.decode() if isinstance(v, bytes) else str(v)
            except Exception:  # noqa: BLE001
                _DRIVER = "unknown"
    return _DRIVER


def env_fields(device=None):
    """Fields every row carries (date is per row, set by the writer)."""
    dev = torch.cuda.current_device() if device is None else device
    props = torch.cuda.get_device_properties(dev)
    return {
        "gpu": torch.cuda.get_device_name(dev),
        "gpu_count": torch.cuda.device_count(),
        "sm_count": props.multi_processor_count,
        "gpu_mem_bytes": int(props.total_memory),
        "driver": driver_version(),
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "engine": "torch-reference",
    }


class Writer:
    """One JSON-lines file per section; every row is flushed and fsynced as it is written."""

    def __init__(self, out_dir, name, env, mode="a"):
        """mode "a" appends (run_all's sections, several processes in turn); "w" starts the file
        afresh (the standalone scripts, one file per run)."""
        self.path = os.path.join(out_dir, name)
        self.f = open(self.path, mode, encoding="utf-8")
        self.env = env
        self.rows = 0

    def write(self, row):
        full = dict(self.env)
        full["date_utc"] = utc_now_iso()
        full.update(row)
        self.f.write(json.dumps(full, sort_keys=False) + "\n")
        self.f.flush()
        try:
            os.fsync(self.f.fileno())
        except OSError:
            pass
        self.rows += 1

    def close(self):
        self.f.close()

    def write_all(self, rows):
        for r in rows:
            self.write(r)
        self.close()


class Guard:
    """Global wall-clock guard plus a per-section budget."""

    def __init__(self, deadline):
        self.deadline = deadline
        self.section_deadline = deadline
        self.section = ""
        self.skipped = {}

    def start_section(self, name, budget_s, quiet=False):
        self.section = name
        self.section_deadline = min(self.deadline, time.time() + budget_s)
        if not quiet:
            log(f"== section {name}: budget {budget_s:.0f} s, global left {self.left():.0f} s")

    def left(self):
        return self.deadline - time.time()

    def ok(self, reserve_s=0.0):
        """True while both the section budget and the global deadline allow another point."""
        now = time.time()
        good = now + reserve_s < self.section_deadline and now + reserve_s < self.deadline
        if not good:
            self.skipped[self.section] = self.skipped.get(self.section, 0) + 1
        return good


_FLUSH = {}


def l2_flush_buffer():
    dev = torch.cuda.current_device()
    if dev not in _FLUSH:
        # 256 MiB, over four times the H200's 60 MB L2; zero_() is a plain memset.
        _FLUSH[dev] = torch.empty(256 * 1024 * 1024, dtype=torch.int8, device="cuda")
    return _FLUSH[dev]


def bench(fn, *, target_s=0.02, min_reps=5, max_reps=100, warmup=2, flush_l2=True,
          fixed_reps=None):
    """Median time of fn() on the GPU, measured with CUDA events around every call.

    `warmup` calls first (at least one); the last of them is timed as an estimate, and
    reps = target_s / estimate clamped to [min_reps, max_reps] (or fixed_reps, which several
    ranks that must make the same calls use). With flush_l2, a 256 MiB memset runs before every
    timed call (outside the events), as triton.testing.do_bench does, so no call reads a warm L2.
    Returns dict(median_s, min_s, p10_s, p90_s, reps).
    """
    for _ in range(max(0, warmup - 1)):
        fn()
    torch.cuda.synchronize()
    s = torch.cuda.Event(enable_timing=True)
    e = torch.cuda.Event(enable_timing=True)
    buf = l2_flush_buffer() if flush_l2 else None
    if buf is not None:
        buf.zero_()
    s.record()
    fn()
    e.record()
    torch.cuda.synchronize()
    est_s = max(s.elapsed_time(e) / 1e3, 1e-7)
    if fixed_reps is not None:
        reps = int(fixed_reps)
    else:
        reps = int(min(max_reps, max(min_reps, target_s / est_s)))
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    for i in range(reps):
        if buf is not None:
            buf.zero_()
        starts[i].record()
        fn()
        ends[i].record()
    torch.cuda.synchronize()
    times = sorted(a.elapsed_time(b) / 1e3 for a, b in zip(starts, ends))
    return summarize(times)


def summarize(times):
    n = len(times)
    return {
        "median_s": statistics.median(times),
        "min_s": times[0],
        "p10_s": times[int(0.1 * (n - 1))],
        "p90_s": times[int(0.9 * (n - 1))],
        "reps": n,
    }


def free_gpu():
    import gc
    gc.collect()
    torch.cuda.synchronize()
    torch.cuda.empty_cache()


def mem_free_bytes():
    free, _total = torch.cuda.mem_get_info()
    return free


def randn(shape, dtype=torch.bfloat16, std=1.0, device="cuda"):
    """Random normal tensor made on the GPU (never zeros)."""
    t = torch.empty(shape, dtype=dtype, device=device)
    t.normal_(0.0, std)
    return t


def fmt_s(x):
    if x is None:
        return "-"
    if x < 1e-3:
        return f"{x * 1e6:.1f}us"
    if x < 1:
        return f"{x * 1e3:.2f}ms"
    return f"{x:.2f}s"


def py_version():
    return sys.version.split()[0]
