#!/usr/bin/env python3
"""make bench-s3: object-storage figures against a real SeaweedFS on loopback.

Starts `weed mini` (from .build/s3-venv, `make s3-deps`) on free loopback ports in a
temporary folder with keys it writes and one bucket, runs `utensil-bench s3` against it (PUT,
GET, ranged GET and DELETE of photo-sized objects, one at a time and several at once), prints
the figures and writes them to bench/results/latest-s3.json, then stops the server and removes
its folder. Ratios matter, not absolute times: the machine is shared.

usage: bench/s3.py BIN_DIR WEED [--objects N] [--bytes N] [--parallel N]
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
    results = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results")
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


if __name__ == "__main__":
    sys.exit(main())
