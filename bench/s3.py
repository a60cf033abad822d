#!/usr/bin/env python3
"""make bench-s3 (and make bench): object storage against a real SeaweedFS on loopback.

Starts `weed mini` (from .build/s3-venv, `make s3-deps`) on free loopback ports in a
temporary folder with keys it writes and one bucket, then, with that one server:

- objects: `utensil-bench s3` (PUT, GET, ranged GET and DELETE of photo-sized objects, one
  at a time and several at once);
- ingest: the 12 MP JPEG burst of `make bench` (bench/corpus/jpeg12) into a fresh utensild
  on local folders, then into one on the bucket (a prefix of its own each round),
  alternating, --rounds rounds: photos a second (the ratio of the medians; the goal at least
  0.8), the daemon's CPU a photo, and the server's CPU a photo beside it. In two placements,
  alternating within each round (--placement picks one): co-located, the daemon and the
  server sharing every CPU the bench may use (the server's CPU a photo then comes out of the
  daemon's); and apart, the server's processes pinned to one CPU and the daemon, for the run
  into local folders and the run into the bucket alike, to another (sched_setaffinity, as
  `taskset` does), so that the ratio is what a site whose bucket is another machine sees;
- gallery: one daemon on local folders and one on the bucket, each holding the burst's
  photos, serving `GET /thumbnails/…` (a first pass over every thumbnail, then --passes
  passes, warm) and `GET /originals/…` (every original, --passes passes) over one kept-alive
  connection: p50 and p99 of request to whole reply (the goal: a thumbnail's p99 from the
  bucket below 20 ms warm).

Prints the figures and writes them to bench/results/latest-s3.json, then stops the server and
removes its folder. Ratios matter, not absolute times: the machine is shared.

usage: bench/s3.py BIN_DIR WEED [--corpus DIR] [--rounds N] [--passes N] [--only objects]
                   [--objects N] [--bytes N] [--parallel N] [--placement both|colocated|apart]
"""
import argparse
import glob
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from run import Events, Daemon, TimedGet, free_port, loadavg, log as note, percentile, photos, stage, utensild_burst  # noqa: E402

GOALS = {"ingest_ratio": 0.8, "thumbnail_p99_ms": 20.0}

# The ingest's placements of the server beside the daemon, and what each one's ratio says.
PLACEMENTS = {
    "colocated": "the server's CPU comes out of the daemon's: bound by CPU, the ratio cannot pass "
                 "{cap:.2f} ({local:.1f} / ({bucket:.1f} + {server:.1f}) ms a photo)",
    "apart": "the daemon on a CPU of its own in both runs, the server on another, as a bucket on "
             "another machine; the daemon's CPU, folders / bucket: {own:.2f}",
}

PORT_FLAGS = ["master.port", "master.port.grpc", "volume.port", "volume.port.grpc", "filer.port",
              "filer.port.grpc", "s3.port", "s3.port.grpc", "admin.port", "admin.port.grpc"]


def free_ports(count):
    ports = set()
    while len(ports) < count:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        if port < 55000 and not ({port, port - 10000, port + 10000} & ports):
            ports.add(port)
    return sorted(ports)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("bin")
    parser.add_argument("weed")
    parser.add_argument("--objects", default="40")
    parser.add_argument("--bytes", default="4000000")
    parser.add_argument("--parallel", default="4")
    parser.add_argument("--corpus", default=os.path.join(HERE, "corpus"))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--passes", type=int, default=5)
    parser.add_argument("--only", choices=["objects"], help="the object figures alone")
    parser.add_argument("--placement", choices=["both", *PLACEMENTS], default="both",
                        help="the ingest's placements: the server on the daemon's CPUs, on a CPU of its own, or both")
    args = parser.parse_args()
    if not os.access(args.weed, os.X_OK):
        raise SystemExit(f"bench: {args.weed} is missing: run `make s3-deps`")
    folder = tempfile.mkdtemp(prefix="utensild-bench-weed-")
    ports = dict(zip(PORT_FLAGS, free_ports(len(PORT_FLAGS))))
    key, secret = "bench-" + secrets.token_hex(4), secrets.token_urlsafe(24)
    with open(os.path.join(folder, "s3.json"), "w") as f:
        json.dump({"identities": [{"name": "bench", "credentials": [{"accessKey": key, "secretKey": secret}],
                                   "actions": ["Admin", "Read", "List", "Tagging", "Write"]}]}, f)
    credentials = os.path.join(folder, "storage-credentials")
    with open(credentials, "w") as f:
        f.write(f"AWS_ACCESS_KEY_ID={key}\nAWS_SECRET_ACCESS_KEY={secret}\n")
    os.makedirs(os.path.join(folder, "data"))
    command = [args.weed, "mini", f"-dir={folder}/data", "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
               f"-s3.config={folder}/s3.json", "-s3.port.iceberg=0", "-s3.port.lance=0", "-webdav=false",
               "-admin.ui=false", "-s3.autoCreateBucket=false", "-bucket=bench",
               f"-filer.localSocket={folder}/filer.sock", f"-s3.localSocket={folder}/s3.sock"]
    command += [f"-{flag}={port}" for flag, port in ports.items()]
    endpoint = f"http://127.0.0.1:{ports['s3.port']}"
    with open(os.path.join(folder, "weed.log"), "w") as log:
        server = subprocess.Popen(command, stdout=log, stderr=log, stdin=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while True:  # Polling with a deadline: any HTTP answer means the gateway listens.
            try:
                urllib.request.urlopen(endpoint + "/bench", timeout=2)
                break
            except urllib.error.HTTPError:
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit("bench: SeaweedFS did not start:\n" + open(os.path.join(folder, "weed.log")).read()[-3000:])
                time.sleep(0.1)
        figures = None
        deadline = time.monotonic() + 60
        while figures is None:  # The bucket is made just after the gateway listens.
            result = subprocess.run(
                [os.path.join(args.bin, "utensil-bench"), "s3", "--endpoint", endpoint, "--bucket", "bench",
                 "--credentials", credentials, "--objects", args.objects, "--bytes", args.bytes,
                 "--parallel", args.parallel], capture_output=True, text=True)
            if result.returncode == 0:
                figures = json.loads(result.stdout)
            elif "no bucket" in result.stderr.lower() and time.monotonic() < deadline:
                time.sleep(0.2)
            else:
                raise SystemExit(f"bench: utensil-bench s3 failed ({result.returncode}): {result.stderr}")
        if args.only != "objects":
            binaries = os.path.abspath(args.bin)
            if not os.path.exists(os.path.join(args.corpus, "jpeg12", ".done")):  # make bench's corpus, built once
                subprocess.run([sys.executable, os.path.join(HERE, "corpus.py"), args.corpus, "--profile", "full"], check=True)
            files = photos(os.path.join(args.corpus, "jpeg12"))
            if not files:
                raise SystemExit(f"bench: no photos in {args.corpus}/jpeg12: run make bench once (it builds the corpus)")

            def bucket(prefix):
                return ("--storage", f"s3://bench/{prefix}", "--storage-endpoint", endpoint,
                        "--storage-credentials-file", credentials)

            work = tempfile.mkdtemp(prefix="utensil-bench-s3.")
            try:
                placements = list(PLACEMENTS) if args.placement == "both" else [args.placement]
                cpus = sorted(os.sched_getaffinity(0))
                if "apart" in placements and len(cpus) < 2:
                    note(f"ingest: one CPU ({cpus[0]}) to run on, so no placement apart")
                    placements.remove("apart")
                note(f"ingest: {len(files)} × 12 MP JPEG, local folders and the bucket in turn, "
                     f"{', '.join(placements)}, {args.rounds} rounds")
                figures["ingest"] = ingest(binaries, files, work, bucket, args.rounds, server.pid, placements, cpus)
                note(f"gallery: thumbnails and originals of {len(files)} utensils, local folders, then the bucket")
                figures["gallery"] = {label: gallery(binaries, files, work, label, extra, args.passes)
                                      for label, extra in [("local", ()), ("bucket", bucket("gallery"))]}
            finally:
                shutil.rmtree(work, ignore_errors=True)
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        shutil.rmtree(folder, ignore_errors=True)
        for port in ports.values():
            for leftover in glob.glob(f"/tmp/seaweedfs-*-{port}.sock"):
                os.unlink(leftover)
    results = os.path.join(HERE, "results")
    os.makedirs(results, exist_ok=True)
    with open(os.path.join(results, "latest-s3.json"), "w") as f:
        json.dump(figures, f, indent=2, sort_keys=True)
    size_mb = int(args.bytes) / 1_048_576
    print(f"object storage (SeaweedFS on loopback), {figures['objects']} objects of {size_mb:.1f} MiB")
    print(f"{'':8} {'phase':14} {'MB/s':>8} {'p50 ms':>8} {'p99 ms':>8}")
    for label in ("serial", "parallel"):
        for phase in ("put", "get", "get_range_64k", "delete"):
            row = figures[label][phase]
            print(f"{label:8} {phase:14} {row['mb_per_s']:8.1f} {row['p50_ms']:8.1f} {row['p99_ms']:8.1f}")
    print(f"requests per rendition: {figures['requests_per_rendition']}; bytes: {figures['bytes_per_rendition']}")
    if "ingest" in figures:
        ingest_rows(figures["ingest"])
        gallery_rows(figures["gallery"])


def server_processes(pid):
    """`pid` and every process descended from it."""
    children = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    parent = int(f.read().rsplit(")", 1)[1].split()[1])
            except (FileNotFoundError, ProcessLookupError):
                continue
            children.setdefault(parent, []).append(int(entry))
    found, queue = [], [pid]
    while queue:
        found.append(queue.pop())
        queue += children.get(found[-1], [])
    return found


def process_cpu(pid):
    """CPU seconds (user and system) the process `pid` and its descendants have used so far."""
    total = 0.0
    for each in server_processes(pid):
        try:
            with open(f"/proc/{each}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except FileNotFoundError:
            continue
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def pin(pid, cpus):
    """Every thread of `pid` and its descendants onto `cpus` (as `taskset -a -p` does); passes
    again until one finds no thread it had not pinned, since a thread may start meanwhile (and
    one started after that inherits its creator's CPUs)."""
    pinned = set()
    while True:
        threads = set()
        for each in server_processes(pid):
            try:
                threads |= {int(tid) for tid in os.listdir(f"/proc/{each}/task")}
            except FileNotFoundError:
                pass
        fresh = threads - pinned
        if not fresh:
            return
        for tid in fresh:
            try:
                os.sched_setaffinity(tid, cpus)
            except ProcessLookupError:
                pass
        pinned |= fresh


def median(values):
    return sorted(values)[len(values) // 2]


def ingest(binaries, files, work, bucket, rounds, server_pid, placements, cpus):
    """The burst into local folders, then into the bucket, in each of `placements` in turn,
    `rounds` times; the medians of each placement. `cpus`: those the bench may use; apart, the
    server gets the first and the daemon the second."""
    where = {"colocated": (set(cpus), None), "apart": ({cpus[0]}, {cpus[1]})}
    runs = {placement: ([], []) for placement in placements}
    loads = []
    for round_ in range(rounds):
        loads.append(loadavg())
        for placement in placements:
            server_cpus, daemon_cpus = where[placement]
            pin(server_pid, server_cpus)
            local, remote = runs[placement]
            root = os.path.join(work, f"{placement}-{round_}")
            wall, cpu, _ = utensild_burst(binaries, files, root + "-local", cpus=daemon_cpus)
            local.append((len(files) / wall, cpu * 1000 / len(files)))
            before = process_cpu(server_pid)
            wall, cpu, _ = utensild_burst(binaries, files, root + "-bucket", extra=bucket(f"burst-{placement}-{round_}"),
                                          cpus=daemon_cpus)
            server = process_cpu(server_pid) - before
            remote.append((len(files) / wall, cpu * 1000 / len(files), server * 1000 / len(files)))
            note(f"  round {round_ + 1}, {placement}: local {local[-1][0]:.2f}/s, bucket {remote[-1][0]:.2f}/s "
                 f"({remote[-1][0] / local[-1][0]:.3f}), load {loadavg():.2f}")
    pin(server_pid, set(cpus))
    result = dict(images=len(files), rounds=rounds, load_rounds=loads)  # the load average as each round began
    for placement, (local, remote) in runs.items():
        server_cpus, daemon_cpus = where[placement]
        local_rate, remote_rate = median([r[0] for r in local]), median([r[0] for r in remote])
        result[placement] = dict(
            daemon_cpus=sorted(daemon_cpus or cpus), server_cpus=sorted(server_cpus),
            local_per_second=round(local_rate, 2), bucket_per_second=round(remote_rate, 2),
            ratio=round(remote_rate / local_rate, 3),
            local_cpu_ms_per_photo=round(median([r[1] for r in local]), 1),
            bucket_cpu_ms_per_photo=round(median([r[1] for r in remote]), 1),
            server_cpu_ms_per_photo=round(median([r[2] for r in remote]), 1),
            local_rounds=[round(r[0], 2) for r in local], bucket_rounds=[round(r[0], 2) for r in remote],
            round_ratios=[round(b[0] / a[0], 3) for a, b in zip(local, remote)])
    return result


def gallery(binaries, files, work, label, extra, passes):
    """A daemon holding `files` serving its thumbnails and originals over HTTP on loopback."""
    port = free_port()
    daemon = Daemon(binaries, os.path.join(work, f"gallery-{label}"), web_listen=f"127.0.0.1:{port}", extra=extra)
    try:
        events = Events(daemon)
        for staged, target in stage(daemon, files):
            os.rename(staged, target)
        events.wait(len(files))
        events.close()
        get = TimedGet(port)
        _, listing = get(f"/api/v1/utensils?limit={len(files)}")
        utensils = json.loads(listing)["utensils"]
        if len(utensils) != len(files):
            raise SystemExit(f"bench: the gallery lists {len(utensils)} utensils, not {len(files)}")
        thumbnails = [f"/thumbnails/{u['id']}.jpeg" for u in utensils]
        originals = [f"/originals/{u['id']}.{u['extension']}" for u in utensils]
        first = [get(path)[0] for path in thumbnails]
        warm = [get(path)[0] for _ in range(passes) for path in thumbnails]
        sizes, times = [], []
        for _ in range(passes):
            for path in originals:
                elapsed, body = get(path)
                times.append(elapsed)
                sizes.append(len(body))
        get.close()
        return dict(utensils=len(utensils),
                    thumbnail_first_p50_ms=round(percentile(first, 50), 2), thumbnail_first_p99_ms=round(percentile(first, 99), 2),
                    thumbnail_samples=len(warm), thumbnail_p50_ms=round(percentile(warm, 50), 2),
                    thumbnail_p99_ms=round(percentile(warm, 99), 2),
                    original_samples=len(times), original_mean_bytes=int(sum(sizes) / len(sizes)),
                    original_p50_ms=round(percentile(times, 50), 1), original_p99_ms=round(percentile(times, 99), 1),
                    original_mb_per_s=round(sum(sizes) / 1_048_576 / (sum(times) / 1000), 1))
    finally:
        daemon.stop()


def ingest_rows(i):
    print(f"\ningest, {i['images']} × 12 MP JPEG burst, median of {i['rounds']} rounds (alternating), "
          f"load average {min(i['load_rounds']):.1f}–{max(i['load_rounds']):.1f} as the rounds began")
    print(f"{'':10} {'CPUs daemon/server':>18} {'photos/s local':>15} {'bucket':>7} "
          f"{'CPU ms/photo local':>19} {'bucket':>7} {'server':>7} {'rounds bucket/local':>20}")
    for placement in PLACEMENTS:
        if placement in i:
            r = i[placement]
            where = f"{','.join(map(str, r['daemon_cpus']))}/{','.join(map(str, r['server_cpus']))}"
            print(f"{placement:10} {where:>18} {r['local_per_second']:15.2f} {r['bucket_per_second']:7.2f} "
                  f"{r['local_cpu_ms_per_photo']:19.1f} {r['bucket_cpu_ms_per_photo']:7.1f} "
                  f"{r['server_cpu_ms_per_photo']:7.1f} {' '.join(f'{x:.2f}' for x in r['round_ratios']):>20}")
    for placement, meaning in PLACEMENTS.items():
        if placement in i:
            r = i[placement]
            local, bucket, server = r["local_cpu_ms_per_photo"], r["bucket_cpu_ms_per_photo"], r["server_cpu_ms_per_photo"]
            why = meaning.format(local=local, bucket=bucket, server=server, cap=local / max(bucket + server, 0.1),
                                 own=local / max(bucket, 0.1))
            ok = "✓" if r["ratio"] >= GOALS["ingest_ratio"] else "✗"
            print(f"bucket / local, {placement}: {r['ratio']:.3f} (goal ≥ {GOALS['ingest_ratio']}) {ok}: {why}")


def gallery_rows(g):
    print(f"\ngallery over HTTP on loopback, {g['local']['utensils']} utensils, one kept-alive connection")
    print(f"{'':8} {'thumb first p50/p99 ms':>23} {'thumb warm p50/p99 ms':>22} {'original p50/p99 ms':>20} {'original MB/s':>14}")
    for label in ("local", "bucket"):
        r = g[label]
        print(f"{label:8} {r['thumbnail_first_p50_ms']:11.2f}/{r['thumbnail_first_p99_ms']:<11.2f} "
              f"{r['thumbnail_p50_ms']:10.2f}/{r['thumbnail_p99_ms']:<11.2f} "
              f"{r['original_p50_ms']:9.1f}/{r['original_p99_ms']:<10.1f} {r['original_mb_per_s']:14.1f}")
    ok = "✓" if g["bucket"]["thumbnail_p99_ms"] < GOALS["thumbnail_p99_ms"] else "✗"
    print(f"bucket thumbnail p99 warm: {g['bucket']['thumbnail_p99_ms']:.2f} ms (goal < {GOALS['thumbnail_p99_ms']:.0f} ms) {ok}")


if __name__ == "__main__":
    sys.exit(main())
