#!/usr/bin/python3
"""make bench-postgres: utensild on PostgreSQL beside utensild on SQLite, in one run.

    bench/postgres.py --bin .build/release --corpus bench/corpus [--rounds N] [--drops N]

Starts a PostgreSQL 15 of its own (initdb into a temporary folder, a socket there and a free
loopback port, a role with a password; as the `postgres` user when run as root), then:

- ingest throughput: the 12 MP JPEG burst of `make bench` into a fresh daemon with SQLite, then
  into one with PostgreSQL (a fresh database each round), alternating, N rounds; the ratio of
  the medians (issue 23's goal: at least 0.9);
- visible on another host: two daemons (host_name bench-a and bench-b) sharing one state folder
  and one PostgreSQL catalog; single drops on bench-a, each timed from the rename into bench-a's
  inbox to its event arriving on bench-b's `events` (LISTEN/NOTIFY); p50 and p99 (goal: p99
  below 1 s).

Both hosts run on this machine (the network namespaces of the tests add nothing to measure).
Prints the rows and writes them as JSON to bench/results/latest-postgres.json.
"""

import argparse
import datetime
import json
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import Daemon, Events, free_port, log, percentile, photos, stage, utensild_burst  # noqa: E402

PG_BIN = "/usr/lib/postgresql/15/bin"
GOALS = {"throughput_ratio": 0.9, "other_host_p99_ms": 1000.0}


class Postgres:
    """A private PostgreSQL 15: the role `utensil` with a password; `database(name)` makes one."""

    def __init__(self, root):
        if not os.path.exists(os.path.join(PG_BIN, "pg_ctl")):
            raise SystemExit("bench: PostgreSQL 15 is missing: apt-get install postgresql-15 (make bench-postgres installs it)")
        self.folder = tempfile.mkdtemp(prefix="pg.", dir=root)
        self.port = free_port()
        self.password = os.urandom(12).hex()
        self.password_file = os.path.join(root, "catalog-password")
        with open(self.password_file, "w") as f:
            f.write(self.password + "\n")
        os.chmod(self.password_file, 0o600)
        self.as_user = []
        if os.getuid() == 0:
            user = pwd.getpwnam("postgres")
            os.chown(self.folder, user.pw_uid, user.pw_gid)
            self.as_user = ["/usr/sbin/runuser", "-u", "postgres", "--"]
        os.chmod(self.folder, 0o700)
        data = os.path.join(self.folder, "data")
        self.run("initdb", "-D", data, "-U", "postgres", "-A", "trust", "--encoding=UTF8", "--locale=C.UTF-8", "--no-instructions")
        with open(os.path.join(data, "pg_hba.conf"), "w") as f:
            f.write("local all postgres trust\nlocal all all scram-sha-256\nhost all all 127.0.0.1/32 scram-sha-256\n")
        self.run("pg_ctl", "-D", data, "-w", "-l", os.path.join(self.folder, "postgres.log"),
                 "-o", f"-k {self.folder} -p {self.port} -c listen_addresses=127.0.0.1", "start")
        self.data = data
        self.sql(f"CREATE ROLE utensil LOGIN PASSWORD '{self.password}'")

    def run(self, program, *arguments):
        subprocess.run(self.as_user + [os.path.join(PG_BIN, program), *arguments], check=True,
                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=self.folder)

    def sql(self, statement):
        subprocess.run([os.path.join(PG_BIN, "psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", self.folder, "-p",
                        str(self.port), "-U", "postgres", "-d", "postgres", "-c", statement], check=True,
                       stdout=subprocess.DEVNULL, cwd="/")

    def database(self, name):
        """A new database owned by the role; the daemon's flags for it."""
        self.sql(f"CREATE DATABASE {name} OWNER utensil")
        return ["--catalog", f"postgresql://utensil@127.0.0.1:{self.port}/{name}",
                "--catalog-password-file", self.password_file]

    def stop(self):
        self.run("pg_ctl", "-D", self.data, "-w", "-m", "fast", "stop")


def throughput(binaries, files, work, server, rounds):
    sqlite, postgres = [], []
    for round_ in range(rounds):
        wall, _, _ = utensild_burst(binaries, files, os.path.join(work, f"sqlite-{round_}"))
        sqlite.append(len(files) / wall)
        wall, _, _ = utensild_burst(binaries, files, os.path.join(work, f"pg-{round_}"), extra=server.database(f"burst_{round_}"))
        postgres.append(len(files) / wall)
        log(f"  round {round_ + 1}: SQLite {sqlite[-1]:.1f}/s, PostgreSQL {postgres[-1]:.1f}/s")
    sqlite_median, postgres_median = sorted(sqlite)[rounds // 2], sorted(postgres)[rounds // 2]
    return dict(images=len(files), rounds=rounds, sqlite_per_second=round(sqlite_median, 2),
                postgres_per_second=round(postgres_median, 2), ratio=round(postgres_median / sqlite_median, 3))


def other_host(binaries, files, work, server, drops):
    catalog = server.database("hosts")
    state = os.path.join(work, "shared-state")
    a = Daemon(binaries, os.path.join(work, "a"), state=state, extra=catalog + ["--host-name", "bench-a"])
    b = Daemon(binaries, os.path.join(work, "b"), state=state, extra=catalog + ["--host-name", "bench-b"])
    try:
        chosen = (files * (drops // len(files) + 1))[:drops]
        named = []
        for index, path in enumerate(chosen):  # one name and one photo each: copies differ by a byte appended
            target = os.path.join(work, f"drop-{index:03d}.jpg")
            shutil.copyfile(path, target)
            with open(target, "ab") as f:
                f.write(bytes([index % 256, index // 256]))
            named.append(target)
        pairs = stage(a, named)
        events = Events(b)
        samples = []
        for staged, target in pairs:
            time.sleep(0.25)  # both idle again: nothing in flight
            started = time.monotonic()
            os.rename(staged, target)
            samples.append((events.wait(1)[0] - started) * 1000)
        events.close()
        return dict(drops=len(samples), p50_ms=round(percentile(samples, 50), 1),
                    p99_ms=round(percentile(samples, 99), 1), max_ms=round(max(samples), 1))
    finally:
        a.stop()
        b.stop()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True, help="folder with utensild and utensilctl")
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--drops", type=int, default=40)
    parser.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "results"))
    args = parser.parse_args()
    binaries = os.path.abspath(args.bin)
    subprocess.run([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus.py"),
                    args.corpus, "--profile", "full"], check=True)
    jpeg12 = photos(os.path.join(os.path.abspath(args.corpus), "jpeg12"))
    work = tempfile.mkdtemp(prefix="utensil-bench-pg.")
    os.chmod(work, 0o755)  # the postgres user reaches its folder inside
    server = Postgres(work)
    try:
        log(f"ingest: {len(jpeg12)} 12 MP JPEGs, SQLite then PostgreSQL, {args.rounds} rounds")
        burst = throughput(binaries, jpeg12, work, server, args.rounds)
        log(f"visible on another host: {args.drops} single drops on bench-a, their events on bench-b")
        latency = other_host(binaries, jpeg12, work, server, args.drops)
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)
    results = dict(started=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                   cores=os.cpu_count(), ingest=burst, other_host=latency, goals=GOALS)
    verdict = lambda ok: "PASS" if ok else "MISS"  # noqa: E731
    print(f"{'measure':<46}{'figure':>16}  goal")
    print(f"{'ingest, SQLite':<46}{burst['sqlite_per_second']:>14}/s")
    print(f"{'ingest, PostgreSQL':<46}{burst['postgres_per_second']:>14}/s")
    print(f"{'PostgreSQL ÷ SQLite':<46}{burst['ratio']:>15}×  ≥ {GOALS['throughput_ratio']} "
          f"{verdict(burst['ratio'] >= GOALS['throughput_ratio'])}")
    print(f"{'drop on one host → event on another, p50':<46}{latency['p50_ms']:>13} ms")
    print(f"{'drop on one host → event on another, p99':<46}{latency['p99_ms']:>13} ms  < {GOALS['other_host_p99_ms']:.0f} ms "
          f"{verdict(latency['p99_ms'] < GOALS['other_host_p99_ms'])}")
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "latest-postgres.json"), "w") as f:
        json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
