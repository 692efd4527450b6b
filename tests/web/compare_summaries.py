#!/usr/bin/env python3
"""Compares the native and the browser summary of the same scenario, seed and command log.

Usage: compare_summaries.py native.json browser.json
Every field must be identical (doubles included) except the wall time and "written_by" (the version
and commit of the program that wrote it), which are not part of the simulation. Exits 1 and lists
the differing JSON pointers otherwise.
"""
import json
import sys

kIgnored = {"/wall_time_s", "/written_by"}


def diff(a, b, ptr, out):
    if ptr in kIgnored:
        return
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            p = ptr + "/" + str(k)
            if p in kIgnored:
                continue
            if k not in a or k not in b:
                out.append(f"{p}: only in {'native' if k in a else 'browser'}")
            else:
                diff(a[k], b[k], p, out)
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            out.append(f"{ptr}: {len(a)} items natively, {len(b)} in the browser")
        for i, (x, y) in enumerate(zip(a, b)):
            diff(x, y, f"{ptr}/{i}", out)
    elif a != b or type(a) != type(b) and not (isinstance(a, (int, float)) and isinstance(b, (int, float))):
        out.append(f"{ptr}: native {a!r}, browser {b!r}")


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    with open(sys.argv[1]) as f:
        native = json.load(f)
    with open(sys.argv[2]) as f:
        browser = json.load(f)
    if "error" in browser:
        print("browser run failed:", browser["error"])
        return 1
    out = []
    diff(native, browser, "", out)
    if out:
        print(f"determinism: {len(out)} difference(s) between native and browser summaries:")
        for line in out[:50]:
            print("  " + line)
        return 1
    n = sum(1 for _ in json.dumps(native))
    print(f"determinism: native and browser summaries are identical ({n} characters of JSON, wall time and build ignored)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
