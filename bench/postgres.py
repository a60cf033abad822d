#!/usr/bin/python3
"""make bench-postgres: utensild on PostgreSQL beside utensild on SQLite, in one run.

    bench/postgres.py --bin .build/release --corpus bench/corpus [--rounds N] [--drops N]
                      [--scale-rows N] [--only scale]

Starts a PostgreSQL 15 of its own (initdb into a temporary folder, a socket there and a free
loopback port, a role with a password; as the `postgres` user when run as root), then:

- ingest throughput: the 12 MP JPEG burst of `make bench` into a fresh daemon with SQLite, then
  into one with PostgreSQL (a fresh database each round), alternating, N rounds; the ratio of
  the medians (the goal: at least 0.9);
- visible on another host: two daemons (host_name bench-a and bench-b) sharing one state folder
  and one PostgreSQL catalog; single drops on bench-a, each timed from the rename into bench-a's
  inbox to its event arriving on bench-b's `events` (LISTEN/NOTIFY); p50 and p99 (goal: p99
  below 1 s).

Both hosts run on this machine (the network namespaces of the tests add nothing to measure).

The look-alikes' look-up (`utensil-bench lookalike-catalog`, the catalog's own `lookalikes`
over loopback TCP) over --lookalike-rows utensils (1,000,000 unless given) in a database of
their own, p50/p95/p99 against the goal of 5 ms at p50; --only lookalike runs it alone.

With --scale-rows N, the scale rows over N utensils in PostgreSQL (bench/postgres_scale.py:
start to READY=1, list/search through the socket, the gallery's first page); --only scale runs
them alone. Prints the rows and writes them as JSON to bench/results/latest-postgres.json
(latest-postgres-scale.json with --only scale). The server is stopped and the temporary
folder removed whatever happens (SIGTERM included).
"""

import argparse
import datetime
import json
import os
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import Daemon, Events, free_port, log, percentile, photos, stage, utensild_burst  # noqa: E402
import postgres_scale  # noqa: E402

PG_BIN = "/usr/lib/postgresql/15/bin"
GOALS = {"throughput_ratio": 0.9, "other_host_p99_ms": 1000.0, "lookalike_p50_ms": 5.0}


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
        self.data = os.path.join(self.folder, "data")
        self.run("initdb", "-D", self.data, "-U", "postgres", "-A", "trust", "--encoding=UTF8", "--locale=C.UTF-8",
                 "--no-instructions")
        with open(os.path.join(self.data, "pg_hba.conf"), "w") as f:
            f.write("local all postgres trust\nlocal all all scram-sha-256\nhost all all 127.0.0.1/32 scram-sha-256\n")
        try:
            self.run("pg_ctl", "-D", self.data, "-w", "-l", os.path.join(self.folder, "postgres.log"),
                     "-o", f"-k {self.folder} -p {self.port} -c listen_addresses=127.0.0.1", "start")
            self.sql(f"CREATE ROLE utensil LOGIN PASSWORD '{self.password}'")
        except BaseException:
            self.stop()
            raise

    def run(self, program, *arguments):
        subprocess.run(self.as_user + [os.path.join(PG_BIN, program), *arguments], check=True,
                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=self.folder)

    def psql(self, database, *arguments, **options):
        return subprocess.run([os.path.join(PG_BIN, "psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", self.folder, "-p",
                               str(self.port), "-U", "postgres", "-d", database, *arguments], check=True, cwd="/", **options)

    def sql(self, statement, database="postgres"):
        """Runs `statement` as the superuser (several in one string: one transaction, as psql -c sends them)."""
        self.psql(database, "-c", statement, stdout=subprocess.DEVNULL)

    def query(self, database, statement):
        """The first column of each row `statement` yields, as text."""
        return self.psql(database, "-A", "-t", "-c", statement, capture_output=True, text=True).stdout.splitlines()

    def copy(self, database, statement, source):
        """`COPY … FROM STDIN` with the lines read from the file `source`."""
        self.psql(database, "-c", statement, stdin=source, stdout=subprocess.DEVNULL)

    def database(self, name):
        """A new database owned by the role; the daemon's flags for it."""
        self.sql(f"CREATE DATABASE {name} OWNER utensil")
        return ["--catalog", f"postgresql://utensil@127.0.0.1:{self.port}/{name}",
                "--catalog-password-file", self.password_file]

    def pid(self):
        """The postmaster's pid (the first line of postmaster.pid), or None when it is not running."""
        try:
            with open(os.path.join(self.data, "postmaster.pid")) as f:
                pid = int(f.readline())
            os.kill(pid, 0)
            return pid
        except (FileNotFoundError, ValueError, ProcessLookupError):
            return None

    def stop(self):
        """Stops the server, whatever happened before: a fast shutdown, or, when that does not
        end it within a minute, SIGQUIT (immediate shutdown) and SIGKILL to its pid."""
        pid = self.pid()
        if pid is None:
            return
        try:
            subprocess.run(self.as_user + [os.path.join(PG_BIN, "pg_ctl"), "-D", self.data, "-w", "-t", "60", "-m", "fast",
                                           "stop"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, cwd=self.folder, timeout=90)
        except subprocess.TimeoutExpired:
            pass
        for sig, wait in [(signal.SIGQUIT, 10), (signal.SIGKILL, 10)]:
            if self.pid() != pid:
                return
            os.kill(pid, sig)
            deadline = time.monotonic() + wait
            while self.pid() == pid and time.monotonic() < deadline:
                time.sleep(0.1)


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


def lookalike(binaries, server, rows):
    """`utensil-bench lookalike-catalog` over `rows` utensils in a database of their own (filled
    through the catalog's own batch insert, then VACUUM ANALYZE, as autovacuum would)."""
    server.database("lookalikes")
    bench = [os.path.join(binaries, "utensil-bench"), "lookalike-catalog", "--postgres", f"127.0.0.1:{server.port}/lookalikes",
             "--password-file", server.password_file, "--rows", str(rows)]
    started = time.monotonic()
    # The first run fills the database and measures it cold from the load; analysed, the second is the figure.
    subprocess.run(bench + ["--repeats", "5"], check=True, stdout=subprocess.DEVNULL)
    loaded = round(time.monotonic() - started, 1)
    server.sql("VACUUM (ANALYZE) utensils", database="lookalikes")
    log(f"  loaded in {loaded} s; measuring")
    result = json.loads(subprocess.run(bench + ["--repeats", "200"], check=True, capture_output=True, text=True).stdout)
    result["load_s"] = loaded
    # The same through the fingerprints held in memory: scanned, each candidate confirmed by the catalog.
    result["held"] = json.loads(subprocess.run(
        bench + ["--repeats", "200", "--held", "yes"], check=True, capture_output=True, text=True).stdout)
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True, help="folder with utensild, utensilctl and utensil-bench")
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--drops", type=int, default=40)
    parser.add_argument("--scale-rows", type=int, default=0, help="utensils of the scale rows (0: none)")
    parser.add_argument("--lookalike-rows", type=int, default=1_000_000, help="utensils of the look-alikes' look-up")
    parser.add_argument("--only", choices=["scale", "lookalike"], help="the scale rows, or the look-alikes' look-up, alone")
    parser.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "results"))
    args = parser.parse_args()
    if args.only == "scale" and not args.scale_rows:
        parser.error("--only scale needs --scale-rows N")
    binaries = os.path.abspath(args.bin)
    # SIGTERM ends the run through the finally blocks below: the server stopped, the folder gone.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    results = dict(started=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                   cores=os.cpu_count(), load_at_start=os.getloadavg()[0], goals=GOALS)
    work = tempfile.mkdtemp(prefix="utensil-bench-pg.")
    server = None
    try:
        os.chmod(work, 0o755)  # the postgres user reaches its folder inside
        if args.only is None:
            subprocess.run([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus.py"),
                            args.corpus, "--profile", "full"], check=True)
            jpeg12 = photos(os.path.join(os.path.abspath(args.corpus), "jpeg12"))
        server = Postgres(work)
        if args.only is None:
            log(f"ingest: {len(jpeg12)} 12 MP JPEGs, SQLite then PostgreSQL, {args.rounds} rounds")
            results["ingest"] = throughput(binaries, jpeg12, work, server, args.rounds)
            log(f"visible on another host: {args.drops} single drops on bench-a, their events on bench-b")
            results["other_host"] = other_host(binaries, jpeg12, work, server, args.drops)
        if args.only in (None, "lookalike"):
            log(f"look-alikes: the look-up of near neighbours over {args.lookalike_rows:,} utensils in PostgreSQL")
            results["lookalike"] = lookalike(binaries, server, args.lookalike_rows)
        if args.scale_rows and args.only != "lookalike":
            log(f"scale: {args.scale_rows:,} utensils in PostgreSQL: start, list/search, the first pages")
            results["scale"] = postgres_scale.scale(binaries, work, server, args.scale_rows)
    finally:
        if server is not None:
            server.stop()
        shutil.rmtree(work, ignore_errors=True)
    results["load_at_end"] = os.getloadavg()[0]
    print(table(results))
    print(f"load average {results['load_at_start']:.2f} at start, {results['load_at_end']:.2f} at end "
          f"({results['cores']} cores)")
    os.makedirs(args.out, exist_ok=True)
    name = f"latest-postgres-{args.only}.json" if args.only else "latest-postgres.json"
    with open(os.path.join(args.out, name), "w") as f:
        json.dump(results, f, indent=2)


def table(results):
    """The rows measured, as a Markdown table: measure, figure, detail, goal, verdict."""
    verdict = lambda ok: "PASS" if ok else "MISS"  # noqa: E731
    rows = []
    if "ingest" in results:
        burst, latency = results["ingest"], results["other_host"]
        rows += [
            ("ingest, SQLite", f"{burst['sqlite_per_second']}/s", "", "", ""),
            ("ingest, PostgreSQL", f"{burst['postgres_per_second']}/s", "", "", ""),
            ("PostgreSQL ÷ SQLite", f"{burst['ratio']}×", "", f"≥ {GOALS['throughput_ratio']}",
             verdict(burst["ratio"] >= GOALS["throughput_ratio"])),
            ("drop on one host → event on another, p99", f"{latency['p99_ms']} ms", f"p50 {latency['p50_ms']} ms",
             f"< {GOALS['other_host_p99_ms']:.0f} ms", verdict(latency["p99_ms"] < GOALS["other_host_p99_ms"])),
        ]
    if "lookalike" in results:
        a = results["lookalike"]["all"]
        rows.append((f"look-alikes' look-up, {results['lookalike']['rows']:,} utensils, p50", f"{a['p50ms']} ms",
                     f"p95 {a['p95ms']}, p99 {a['p99ms']} ms", f"< {GOALS['lookalike_p50_ms']:.0f} ms",
                     verdict(a["p50ms"] < GOALS["lookalike_p50_ms"])))
        held = results["lookalike"].get("held")
        if held:
            h = held["all"]
            rows.append((f"  held in memory ({held['heldResidentMB']} MB), p50", f"{h['p50ms']} ms",
                         f"p95 {h['p95ms']}, p99 {h['p99ms']} ms", f"< {GOALS['lookalike_p50_ms']:.0f} ms",
                         verdict(h["p50ms"] < GOALS["lookalike_p50_ms"])))
    if "scale" in results:
        rows += postgres_scale.rows_of(results["scale"], verdict)
    header = ("measure", "figure", "", "goal", "")
    widths = [max(len(str(r[i])) for r in rows + [header]) for i in range(len(header))]
    lines = ["| " + " | ".join(str(v).ljust(widths[i]) for i, v in enumerate(header)) + " |",
             "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    lines += ["| " + " | ".join(str(v).ljust(widths[i]) for i, v in enumerate(r)) + " |" for r in rows]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
