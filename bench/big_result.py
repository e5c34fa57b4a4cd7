#!/usr/bin/env python3
"""bench/big_result.py - a large result.json for compare-report's time and
memory (issue 38: "a 100 MB result.json"). One workload whose metric lat0
holds N samples (default 10 million, about 100 MB), log-normal around a
base, reproducible from the seed; the rest as tests/unit/helpers_cmp.c's
hbt_gen_run writes it.

    bench/big_result.py OUT_DIR [N] [SEED] [SHIFT]

writes OUT_DIR/result.json. Two of them (seeds 1 and 2) are what
docs/compare.md measures:

    bench/big_result.py /tmp/bigA 10000000 1
    bench/big_result.py /tmp/bigB 10000000 2 1.01
    perf stat -r 3 build/hugebench compare-report /tmp/bigA /tmp/bigB
"""
import json
import os
import random
import sys


def main():
    out = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 10_000_000
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    shift = float(sys.argv[4]) if len(sys.argv) > 4 else 1.0
    rng = random.Random(seed)
    reps = 3
    per = n // reps
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "result.json"), "w") as f:
        f.write('{"schema": "hugebench-result/1", "run_id": "big/20261206T000000Z-quick",'
                ' "target": {"name": "big", "kernel_release": "6.12.0", "cmdline": "console=ttyS0"},'
                ' "environment": {"accelerator": "tcg", "qemu_version": "7.2.22", "vcpus": 2,'
                ' "memory_mb": 2048, "clock": "virtual"}, "suite": "quick", "repeat": 3,'
                ' "workloads": [{"name": "fault", "status": "pass", "reason": "", "reps": 3,'
                ' "metrics": [{"name": "lat0", "unit": "ns", "better": "lower", "samples": [')
        means = []
        first = True
        for _ in range(reps):
            rep = rng.lognormvariate(0, 0.01)
            s = 0.0
            chunk = []
            for _ in range(per):
                # four decimals: about 10 bytes a sample, some ties
                v = round(1000 * shift * rep * rng.lognormvariate(0, 0.15), 4)
                s += v
                chunk.append(repr(v))
                if len(chunk) == 100000:
                    f.write(("" if first else ",") + ",".join(chunk))
                    first = False
                    chunk = []
            if chunk:
                f.write(("" if first else ",") + ",".join(chunk))
                first = False
            means.append(s / per)
        f.write('], "rep_means": [%s]}, ' % ",".join(repr(m) for m in means))
        f.write('{"name": "tput0", "unit": "MB/s", "better": "higher", "samples": [500.0, 501.0, 499.0],'
                ' "rep_means": [500.0, 501.0, 499.0]}],'
                ' "checks": [{"name": "huge_pmd_mapped", "expected": "== 65536", "observed": "65536",'
                ' "pass": true, "rep": 0}]}], "kernel_issues": [], "verdict": "pass"}\n')


if __name__ == "__main__":
    main()
