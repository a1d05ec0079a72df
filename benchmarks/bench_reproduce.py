"""Time of every ``venncal reproduce NAME --quick`` (the promise: each under two minutes).

Runs each experiment of ``venncal reproduce --list`` as a user does, in a fresh
interpreter (``python -m venncal.cli reproduce NAME --quick --data-dir DIR --out
TMP/NAME``, ``--jobs 1``, the default), ``--repeats`` times, and records for each run:

* the wall-clock seconds of the whole command (start-up, imports, data, the run, the
  report and its figures);
* the CPU seconds of the child process (user + system): with ``--jobs 1`` the run is
  one process, so on a machine shared with other work the CPU time is the better
  estimate of the wall-clock time on an idle one;
* the 1-minute load average before and after;
* what the report holds: its tables (Markdown table heads) and figures (PNG files).

numba's on-disk cache: the runs use the cache as it is (warm after any earlier run);
``--cold-numba-cache`` adds one run per experiment with ``NUMBA_CACHE_DIR`` set to a new
empty folder, which compiles every kernel the experiment calls (the first run after
installing venncal pays this once).

The target (``--target``, default 120 s) is checked on the best wall-clock time and on
the best CPU time: PASS, or FAIL. This is a script, not a test::

    python benchmarks/bench_reproduce.py                        # every experiment, once
    python benchmarks/bench_reproduce.py --repeats 2 --save     # the record
    python benchmarks/bench_reproduce.py --names vovk2014-uci --cold-numba-cache
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from _harness import Clock, load_average, log, machine_lines, save_report

ROOT = Path(__file__).resolve().parent.parent
TARGET_SECONDS = 120.0


def default_data_dir() -> str | None:
    """``VENNCAL_DATA``, else ``../shared/datasets`` beside the checkout if it exists."""
    if os.environ.get("VENNCAL_DATA"):
        return os.environ["VENNCAL_DATA"]
    shared = ROOT.parent / "shared" / "datasets"
    return str(shared) if shared.is_dir() else None


def experiments() -> list[str]:
    from venncal.experiments import EXPERIMENTS

    return list(EXPERIMENTS)


def run_once(name: str, data_dir: str | None, out: Path, env: dict) -> dict:
    """Run one quick reproduction in a fresh interpreter; return its times and contents."""
    cmd = [sys.executable, "-m", "venncal.cli", "reproduce", name, "--quick", "--out", str(out)]
    if data_dir:
        cmd += ["--data-dir", data_dir]
    load0 = os.getloadavg()[0]
    with Clock(children=True) as clock:
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    row = {
        "name": name, "wall": clock.wall, "cpu": clock.cpu, "load0": load0,
        "load1": os.getloadavg()[0], "rc": proc.returncode,
    }  # fmt: skip
    if proc.returncode != 0:
        row["error"] = (proc.stderr.strip().splitlines() or ["?"])[-1]
        return row
    md = (out / "report.md").read_text(encoding="utf-8")
    row["tables"] = len(re.findall(r"^\|---", md, flags=re.MULTILINE))
    row["figures"] = len(list(out.glob("*.png")))
    said = re.search(r"\(([\d.]+) s\)\s*$", proc.stdout)
    row["run"] = float(said.group(1)) if said else float("nan")
    return row


def verdict(value: float, target: float) -> str:
    return "PASS" if value <= target else "FAIL"


def report(rows: list[dict], args, head: list[str]) -> str:
    lines = [
        "# `venncal reproduce NAME --quick`: time of each experiment",
        "",
        *head,
        f"- load average (1 / 5 / 15 min) at end: {load_average()}",
        f"- data: `--data-dir {args.data_dir}`" if args.data_dir else "- data: no --data-dir",
        "",
        (
            "Fresh interpreter per run, `--jobs 1`; wall = the whole command, CPU = user + "
            "system time of the child process, run = the computation alone (`run()`, as the "
            "report states it); numba cache: warm unless marked cold."
        ),
        "",
        "| experiment | numba cache | wall s | CPU s | run s | load before / after "
        "| tables | figures |",
        "|---|---|---:|---:|---:|---|---:|---:|",
    ]
    for r in rows:
        if r["rc"] != 0:
            lines.append(f"| {r['name']} | {r['cache']} | failed: {r['error']} | | | | | |")
            continue
        lines.append(
            f"| {r['name']} | {r['cache']} | {r['wall']:.1f} | {r['cpu']:.1f} | {r['run']:.1f} "
            f"| {r['load0']:.2f} / {r['load1']:.2f} | {r['tables']} | {r['figures']} |"
        )
    lines += ["", f"Target: each experiment's `--quick` <= {args.target:g} s (warm cache).", ""]
    for name in dict.fromkeys(r["name"] for r in rows):
        warm = [r for r in rows if r["name"] == name and r["cache"] == "warm" and r["rc"] == 0]
        if not warm:
            lines.append(f"- {name}: no successful warm run")
            continue
        wall, cpu = min(r["wall"] for r in warm), min(r["cpu"] for r in warm)
        lines.append(
            f"- {name}: best wall {wall:.1f} s ({verdict(wall, args.target)}), best CPU "
            f"{cpu:.1f} s ({verdict(cpu, args.target)})"
        )
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--names", nargs="+", default=None, metavar="NAME",
                        help="experiments to run (default: all of venncal reproduce --list)")
    parser.add_argument("--data-dir", default=default_data_dir(),
                        help="passed to --data-dir (default: VENNCAL_DATA or ../shared/datasets)")
    parser.add_argument("--repeats", type=int, default=1, help="warm runs per experiment")
    parser.add_argument("--cold-numba-cache", action="store_true",
                        help="also one run per experiment with an empty numba cache")
    parser.add_argument("--target", type=float, default=TARGET_SECONDS, help="seconds")
    parser.add_argument("--save", action="store_true",
                        help="write benchmarks/results/reproduce-<date>.md")
    parser.add_argument("--output", help="write the report to this file (implies --save)")
    args = parser.parse_args(argv)
    names = args.names or experiments()
    head = machine_lines(argv)
    env = dict(os.environ)
    src = str(ROOT / "src")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (src, env.get("PYTHONPATH")) if p)
    rows = []
    with tempfile.TemporaryDirectory(prefix="venncal-bench-reproduce-") as tmp:
        for name in names:
            runs = [("warm", env)] * args.repeats
            if args.cold_numba_cache:
                cold = tempfile.mkdtemp(dir=tmp, prefix="numba-")
                runs = [("cold", {**env, "NUMBA_CACHE_DIR": cold}), *runs]
            for i, (cache, run_env) in enumerate(runs):
                log(f"{name} ({cache} numba cache, run {i + 1}/{len(runs)}) ...")
                row = run_once(name, args.data_dir, Path(tmp) / f"{name}-{i}", run_env)
                row["cache"] = cache
                log(f"  {row['wall']:.1f} s wall, {row['cpu']:.1f} s CPU, rc {row['rc']}")
                rows.append(row)
    text = report(rows, args, head)
    print(text)
    if args.save or args.output:
        save_report(text, "reproduce", args.output)
    return 0 if all(r["rc"] == 0 for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
