#!/usr/bin/python3
"""make bench-ab: two builds of utensild side by side, A (a base) and B (this one), in one run.

    bench/ab.py --a BASE_BIN --b BIN [--corpus DIR] [--rounds N] [--engine-runs N]
                [--engine-rounds N] [--every SECONDS] [--out FILE]

(defaults: bench/corpus, eight rounds, two runs of three rounds, 0.05 s,
bench/results/latest-ab.json)

BASE_BIN and BIN are folders holding utensild, utensilctl and utensil-bench, each built as
installed (scripts/build-installed); a base is built from an older commit in a worktree of its
own: `git worktree add /tmp/ab-base COMMIT`, then, in it, `scripts/build-installed
/tmp/ab-base-build packaging/utensild.order` (BASE_BIN is then /tmp/ab-base-build/release).

- burst: the 12 MP JPEG burst of make bench (bench/corpus/jpeg12, bench/run.py's Daemon,
  stage and Events) into a fresh utensild of A, then of B, alternating A,B,B,A,A,B… for
  --rounds rounds each: photos a second (the first rename to the last commit's event), the
  daemon's CPU seconds a photo (/proc/PID/stat, utime + stime, over the same span), and,
  from a thread during the burst, `status` on the control socket every --every seconds over
  one connection: each request's time to its reply (p50 and p99 of all rounds' requests
  pooled, and each round's p99; --every 0 sends none, for the burst's CPU alone);
- engine: `utensil-bench cpu` of each build on the same photos, --engine-runs runs each,
  alternating: the engine's in-process CPU a photo, and from B's run what B's own A/B rows
  say its newer work costs (the look-alike fingerprint and look-up, the grid square).

Prints the medians, their spreads (lowest–highest) and B ÷ A, and writes them as JSON to
--out. Ratios matter, not absolute times: the machine is shared, so the load average is
recorded at each round; run it on a quiet machine.
"""

import argparse
import datetime
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from run import Daemon, Events, loadavg, log, percentile, photos, stage  # noqa: E402


def control_prober(daemon, every, samples, stop):
    """`status` over one control connection every `every` seconds until `stop` is set;
    appends each request's milliseconds to its reply to `samples`."""
    connection = daemon.connect()
    try:
        due = time.monotonic()
        while not stop.is_set():
            started = time.monotonic()
            reply = daemon.request(connection, {"command": "status"})
            samples.append((time.monotonic() - started) * 1000)
            if not reply.get("ok"):
                raise SystemExit(f"bench: status answered {reply}")
            due += every
            stop.wait(max(0.0, due - time.monotonic()))
    finally:
        connection.close()


def burst(binaries, files, root, every):
    """One burst into a fresh daemon with `status` probed during it; returns the round's figures."""
    daemon = Daemon(binaries, root)
    try:
        pairs = stage(daemon, files)
        events = Events(daemon)
        samples, stop = [], threading.Event()
        prober = threading.Thread(target=control_prober, args=(daemon, every, samples, stop), daemon=True) if every else None
        load = loadavg()
        cpu_before = daemon.cpu_seconds()
        started = time.monotonic()
        if prober:
            prober.start()
        for staged, target in pairs:
            os.rename(staged, target)
        arrivals = events.wait(len(files))
        wall = arrivals[-1] - started
        cpu = daemon.cpu_seconds() - cpu_before
        stop.set()
        if prober:
            prober.join()
        events.close()
        count = daemon.ctl("status")["utensils"]
        if count != len(files):
            raise SystemExit(f"bench: the catalog holds {count} utensils, expected {len(files)}")
        if prober and not samples:
            raise SystemExit("bench: no status request was answered during the burst")
        return dict(per_second=len(files) / wall, cpu_ms=cpu / len(files) * 1000, control_ms=samples,
                    control_p99_ms=percentile(samples, 99) if samples else None, load=load)
    finally:
        daemon.stop()
        shutil.rmtree(root, ignore_errors=True)


def engine_cpu(binaries, corpus, work, rounds):
    """`utensil-bench cpu` of one build on jpeg12; returns its JSON for the set."""
    out = subprocess.run([os.path.join(binaries, "utensil-bench"), "cpu", "--work", work, "--rounds", str(rounds),
                          f"jpeg12={corpus}/jpeg12"], check=True, capture_output=True, text=True).stdout
    return json.loads(out)["jpeg12"]


def spread(values, digits=2):
    """Median, lowest and highest."""
    return dict(median=round(statistics.median(values), digits), low=round(min(values), digits),
                high=round(max(values), digits), n=len(values))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--a", required=True, help="the base's folder of binaries")
    parser.add_argument("--b", required=True, help="this build's folder of binaries")
    parser.add_argument("--corpus", default=os.path.join(HERE, "corpus"))
    parser.add_argument("--rounds", type=int, default=8, help="bursts into each build (at least 5)")
    parser.add_argument("--engine-runs", type=int, default=2, help="utensil-bench cpu runs of each build (0: none)")
    parser.add_argument("--engine-rounds", type=int, default=3, help="rounds within each utensil-bench cpu run")
    parser.add_argument("--every", type=float, default=0.05, help="seconds between status requests (0: none)")
    parser.add_argument("--out", default=os.path.join(HERE, "results", "latest-ab.json"))
    args = parser.parse_args()
    if args.rounds < 5:
        parser.error("--rounds is at least 5")
    builds = {"A": os.path.abspath(args.a), "B": os.path.abspath(args.b)}
    for name, folder in builds.items():
        for program in ["utensild", "utensilctl", "utensil-bench"]:
            if not os.access(os.path.join(folder, program), os.X_OK):
                raise SystemExit(f"bench: {name}'s {program} is missing from {folder}")
    subprocess.run([sys.executable, os.path.join(HERE, "corpus.py"), args.corpus, "--profile", "full"], check=True)
    corpus = os.path.abspath(args.corpus)
    files = photos(os.path.join(corpus, "jpeg12"))
    for path in files:  # every burst starts from the page cache
        with open(path, "rb") as f:
            while f.read(1 << 20):
                pass

    work = tempfile.mkdtemp(prefix="utensil-ab.")  # short: a socket path has at most 107 bytes
    began = time.monotonic()
    results = dict(started=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                   machine=dict(cores=os.cpu_count(), load_at_start=loadavg()), binaries=builds,
                   photos=len(files), every_s=args.every)
    rounds = {"A": [], "B": []}
    engines = {"A": [], "B": []}
    try:
        log(f"burst: {len(files)} × 12 MP JPEG, A and B alternating, {args.rounds} rounds each, "
            + (f"status every {args.every * 1000:.0f} ms" if args.every else "no status requests"))
        for round_ in range(args.rounds):
            for name in ("A", "B") if round_ % 2 == 0 else ("B", "A"):
                figures = burst(builds[name], files, os.path.join(work, f"{name}-{round_}"), args.every)
                rounds[name].append(figures)
                log(f"  round {round_ + 1} {name}: {figures['per_second']:.1f} photos/s, "
                    f"{figures['cpu_ms']:.1f} CPU ms a photo, "
                    + (f"status p99 {figures['control_p99_ms']:.1f} ms ({len(figures['control_ms'])} requests), "
                       if figures["control_ms"] else "")
                    + f"load {figures['load']:.2f}")
        for run in range(args.engine_runs):
            for name in ("A", "B") if run % 2 == 0 else ("B", "A"):
                log(f"engine: utensil-bench cpu of {name}, run {run + 1} of {args.engine_runs}")
                engines[name].append(engine_cpu(builds[name], corpus, os.path.join(work, f"cpu-{name}"),
                                                args.engine_rounds))
    finally:
        shutil.rmtree(work, ignore_errors=True)

    summary = {}
    for name in ("A", "B"):
        pooled = [ms for r in rounds[name] for ms in r["control_ms"]]
        summary[name] = dict(per_second=spread([r["per_second"] for r in rounds[name]]),
                             cpu_ms=spread([r["cpu_ms"] for r in rounds[name]]),
                             load=spread([r["load"] for r in rounds[name]]))
        if pooled:
            summary[name].update(
                control_p50_ms=round(percentile(pooled, 50), 2), control_p99_ms=round(percentile(pooled, 99), 2),
                control_max_ms=round(max(pooled), 2), control_requests=len(pooled),
                control_round_p99_ms=spread([r["control_p99_ms"] for r in rounds[name]]))
        if engines[name]:
            summary[name]["engine_cpu_ms"] = spread([e["engineCPUms"] for e in engines[name]])
    # Each round's B over the A run next to it, besides the ratio of the medians.
    paired = lambda key: spread([b[key] / a[key] for a, b in zip(rounds["A"], rounds["B"])], 3)  # noqa: E731
    ratios = dict(per_second=round(summary["B"]["per_second"]["median"] / summary["A"]["per_second"]["median"], 3),
                  per_second_paired=paired("per_second"),
                  cpu_ms=round(summary["B"]["cpu_ms"]["median"] / summary["A"]["cpu_ms"]["median"], 3),
                  cpu_ms_paired=paired("cpu_ms"))
    if "control_p99_ms" in summary["B"]:
        ratios["control_p99"] = round(summary["B"]["control_p99_ms"] / summary["A"]["control_p99_ms"], 3)
    if engines["A"] and engines["B"]:
        ratios["engine_cpu_ms"] = round(summary["B"]["engine_cpu_ms"]["median"] / summary["A"]["engine_cpu_ms"]["median"], 3)
        # What B's own A/B rows give its newer work (absent from a base without them).
        newer = [dict(lookalike_ms=max(0.0, e.get("lookalike", {}).get("lookupCPUms", 0.0))
                      + e.get("lookalike", {}).get("fingerprintCPUms", 0.0),
                      grid_square_ms=e.get("gridSquare", {}).get("engineDifferenceCPUms", 0.0)) for e in engines["B"]]
        summary["B"]["newer_work_ms"] = dict(lookalike=spread([n["lookalike_ms"] for n in newer]),
                                             grid_square=spread([n["grid_square_ms"] for n in newer]))
    results.update(rounds={n: [dict(r, control_ms=[round(ms, 2) for ms in r["control_ms"]]) for r in rs]
                           for n, rs in rounds.items()},
                   engines=engines, summary=summary, ratios=ratios)
    results["machine"]["load_at_end"] = loadavg()
    results["seconds"] = round(time.monotonic() - began, 1)

    def cell(figure):
        return f"{figure['median']:.2f} ({figure['low']:.2f}–{figure['high']:.2f})"

    print(f"{'':<36} {'A (base)':>22} {'B':>22}  B ÷ A")
    for key, label in [("per_second", "12 MP JPEG burst, photos/s"), ("cpu_ms", "daemon CPU ms a photo"),
                       ("engine_cpu_ms", "engine CPU ms a photo (in-process)")]:
        if key in summary["B"]:
            a, b = summary["A"][key], summary["B"][key]
            print(f"{label:<36} {cell(a):>22} {cell(b):>22}  {b['median'] / a['median']:.3f}×")
    if "control_p99_ms" in summary["B"]:
        for key, label in [("control_p50_ms", "status p50 ms during the bursts"),
                           ("control_p99_ms", "status p99 ms during the bursts")]:
            a, b = summary["A"][key], summary["B"][key]
            print(f"{label:<36} {a:>22.2f} {b:>22.2f}  {b / a:.3f}×")
        label = "  each round's status p99 ms"
        print(f"{label:<36} {cell(summary['A']['control_round_p99_ms']):>22} "
              f"{cell(summary['B']['control_round_p99_ms']):>22}")
    print(f"paired rounds, B ÷ A: photos/s {ratios['per_second_paired']['median']:.3f} "
          f"({ratios['per_second_paired']['low']:.3f}–{ratios['per_second_paired']['high']:.3f}), CPU a photo "
          f"{ratios['cpu_ms_paired']['median']:.3f} ({ratios['cpu_ms_paired']['low']:.3f}–{ratios['cpu_ms_paired']['high']:.3f})")
    if "newer_work_ms" in summary["B"]:
        newer = summary["B"]["newer_work_ms"]
        print(f"B's newer work by its own A/B rows, CPU ms a photo: look-alike fingerprint + look-up "
              f"{newer['lookalike']['median']:.2f}, grid square {newer['grid_square']['median']:.2f}")
    print(f"{args.rounds} rounds each, {results['seconds']:.0f} s; load average {results['machine']['load_at_start']:.2f} "
          f"at start, {results['machine']['load_at_end']:.2f} at end ({results['machine']['cores']} cores).")
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(results, f, indent=2, sort_keys=True)
        f.write("\n")
    log(f"results: {args.out}")


if __name__ == "__main__":
    main()
