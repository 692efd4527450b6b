"""NVIDIA aiconfigurator's silicon sample (InferenceX-style serving runs), read by the builders of the
published points (b300_rows.py, minimax_points.py): the CSV at the commit the project reads, from a
file given or from a local mirror of ai-dynamo/aiconfigurator, and the `key=value; ...` notes of its
silicon_data_source column."""
import csv
import io
import subprocess
import sys
from pathlib import Path

AIC_COMMIT = "095f58a51c4ca8e61b66ec108d86f223f8d559ce"
CSV_PATH = "aic-core/src/aiconfigurator_core/systems/silicon_sample.csv"
MIRROR = Path(__file__).resolve().parents[3] / ".mirror" / "ai-dynamo+aiconfigurator" / "repo"
URL = f"https://github.com/ai-dynamo/aiconfigurator/blob/{AIC_COMMIT}/{CSV_PATH}"
COLUMNS = ("id", "silicon_data_source", "backend", "backend_version", "model_path", "system", "precision", "mode",
           "isl", "osl", "batch_size", "tp_size", "moe_ep_size", "attention_dp_size", "silicon_ttft_ms",
           "silicon_tpot_ms")


def fail(message):
    print(message, file=sys.stderr)
    sys.exit(2)


def read_rows(path):
    """The sample's rows: from `path`, else `git show` of the mirror at AIC_COMMIT. A file that cannot
    be read or lacks a column exits 2 naming the file and the reason."""
    where = path or f"{MIRROR}:{AIC_COMMIT}:{CSV_PATH}"
    try:
        if path:
            with open(path, newline="") as f:
                text = f.read()
        else:
            text = subprocess.run(["git", "--git-dir", str(MIRROR), "show", f"{AIC_COMMIT}:{CSV_PATH}"], check=True,
                                  capture_output=True, text=True).stdout
    except (OSError, UnicodeDecodeError, subprocess.CalledProcessError) as e:
        fail(f"{where}: cannot read the silicon sample: {e} (give one with --csv FILE)")
    reader = csv.DictReader(io.StringIO(text))
    missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
    if missing:
        fail(f"{where}: not the silicon sample: no column {', '.join(missing)}")
    return list(reader)


def note_field(note, name):
    """The value of `name` in a `key=value; ...` note, '' when absent."""
    for part in note.split(";"):
        k, _, v = part.strip().partition("=")
        if k == name:
            return v
    return ""
