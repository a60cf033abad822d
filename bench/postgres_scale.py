"""The scale rows of make bench-postgres: utensild over a million utensils in PostgreSQL.

The same measures and goals as the SQLite scale rows of `make bench` (bench/run.py `scale`),
on a PostgreSQL catalog:

1. a daemon started once on the empty database makes the schema (the catalog's own
   migrations), then stops;
2. `utensil-bench postgres-rows` writes the rows of ScaleCatalog (the same names, keys,
   claims, categories and dates as the SQLite scale catalog, with `host`) as COPY text,
   piped into `COPY utensils FROM STDIN`. For the load only, as a bulk load is done, the
   table's secondary indexes are dropped and the counting trigger disabled; afterwards the
   indexes are made again from their own definitions (pg_indexes, read before the drop), the
   counts computed once, and `VACUUM (ANALYZE)` run, as autovacuum would after that many
   inserts;
3. the release daemon is started three times (page cache dropped before each, when root may;
   the PostgreSQL server keeps running, as a production one would): `exec` to `READY=1`;
   then, on the last, `list`, `list --category`, `list --search` dense and sparse and
   `categories` through the socket (run.py's `scale_queries`), and the gallery's first page
   (`GET /`, 50 thumbnails) and the API's (`GET /api/v1/utensils?limit=50`) on one kept-alive
   connection.

The state folder holds no files for the rows: with `staging/` present, start-up looks only
there, and neither the list nor the pages read a photo (`check` would report every row, so it
is not measured here; its SQLite row is).
"""

import json
import os
import subprocess
import time

from run import Daemon, TimedGet, free_port, log, percentile, scale_queries  # noqa: E402

GOALS = {"ready_s": 3.0, "query_p99_ms": 50.0, "gallery_p99_ms": 50.0}
STARTS = 3
REPEATS = 20  # per request, as the SQLite rows
PAGE_REPEATS = 200


def load(server, database, bench, rows):
    """Fills `database` (migrated, empty) with `rows` utensils; returns the seconds taken."""
    started = time.monotonic()
    definitions = server.query(database, "SELECT indexdef FROM pg_indexes WHERE tablename = 'utensils' "
                                         "AND indexname <> 'utensils_pkey' ORDER BY indexname")
    names = server.query(database, "SELECT indexname FROM pg_indexes WHERE tablename = 'utensils' "
                                   "AND indexname <> 'utensils_pkey' ORDER BY indexname")
    server.sql("".join(f"DROP INDEX {name};" for name in names)
               + "ALTER TABLE utensils DISABLE TRIGGER utensils_keep_counts;", database=database)
    columns = subprocess.run([bench, "postgres-columns"], check=True,
                             capture_output=True, text=True).stdout.strip()
    producer = subprocess.Popen([bench, "postgres-rows", "--rows", str(rows)], stdout=subprocess.PIPE)
    try:
        server.copy(database, f"COPY utensils ({columns}) FROM STDIN", producer.stdout)
    finally:
        producer.stdout.close()
        if producer.wait() != 0:
            raise SystemExit(f"bench: utensil-bench postgres-rows exited with {producer.returncode}")
    copied = time.monotonic()
    server.sql("SET maintenance_work_mem = '256MB';"
               + "".join(f"{definition};" for definition in definitions)
               + "ALTER TABLE utensils ENABLE TRIGGER utensils_keep_counts;"
               + "UPDATE utensil_count SET utensils = (SELECT count(*) FROM utensils WHERE trashed_at IS NULL);"
               + "DELETE FROM category_counts;"
               + "INSERT INTO category_counts (category_key, category, utensils) SELECT category_key, min(category), "
               + "count(*) FROM utensils WHERE trashed_at IS NULL AND category_key IS NOT NULL GROUP BY category_key;",
               database=database)
    server.sql("VACUUM (ANALYZE) utensils", database=database)
    size = server.query(database, "SELECT pg_size_pretty(pg_database_size(current_database()))")[0]
    return dict(copy_s=round(copied - started, 1), total_s=round(time.monotonic() - started, 1), database_size=size)


def drop_caches():
    """Evicts the page cache (PostgreSQL's files and the state folder) when root may."""
    os.sync()
    try:
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("3\n")
        return "page cache dropped"
    except OSError:
        return "warm"


def pages(port):
    """`GET /` (the gallery's first page) and `GET /api/v1/utensils?limit=50`, each once untimed
    and then PAGE_REPEATS times on one kept-alive connection."""
    get = TimedGet(port)

    result = {}
    for kind, path in [("gallery", "/"), ("api", "/api/v1/utensils?limit=50")]:
        first, body = get(path)
        shown = body.count(b'class="card"') if kind == "gallery" else len(json.loads(body)["utensils"])
        if shown != 50:
            raise SystemExit(f"bench: GET {path} shows {shown} utensils, not 50")
        times = [get(path)[0] for _ in range(PAGE_REPEATS)]
        result[kind] = dict(first_ms=round(first, 1), samples=len(times), p50_ms=round(percentile(times, 50), 2),
                            p99_ms=round(percentile(times, 99), 2))
    get.close()
    return result


def scale(binaries, work, server, rows):
    """The scale rows over `rows` utensils in a database of their own."""
    bench = os.path.join(binaries, "utensil-bench")
    catalog = server.database("scale")
    state = os.path.join(work, "scale-state")
    log("  the schema: a daemon started once on the empty database")
    Daemon(binaries, os.path.join(work, "scale-migrate"), state=state, extra=catalog).stop()
    log(f"  loading {rows:,} utensils (COPY, then the indexes, the counts, VACUUM ANALYZE)")
    result = dict(rows=rows, load=load(server, "scale", bench, rows), starts=[])
    log(f"  loaded in {result['load']['total_s']} s ({result['load']['database_size']}); {STARTS} starts")
    for start in range(STARTS):
        cache = drop_caches()
        last = start == STARTS - 1
        port = free_port() if last else None
        daemon = Daemon(binaries, os.path.join(work, f"scale-{start}"), state=state, extra=catalog,
                        web_listen=f"127.0.0.1:{port}" if last else "")
        try:
            result["starts"].append(dict(cache=cache, ready_s=round(daemon.ready_seconds, 2),
                                         peak_rss_mb=round(daemon.status("VmHWM") / 1024, 1)))
            if last:
                result["queries"] = scale_queries(daemon, rows, REPEATS)
                result["web"] = pages(port)
        finally:
            daemon.stop()
    result["ready_s"] = max(s["ready_s"] for s in result["starts"])
    return result


def rows_of(s, verdict):
    """(measure, figure, p50 or detail, goal, verdict) rows of the table."""
    n = f"{s['rows']:,}"
    out = [(f"{n} utensils: start to READY=1, slowest of {len(s['starts'])}", f"{s['ready_s']:.2f} s",
            " ".join(f"{x['ready_s']:.2f}" for x in s["starts"]) + f" ({s['starts'][0]['cache']})",
            f"< {GOALS['ready_s']:.0f} s", verdict(s["ready_s"] < GOALS["ready_s"]))]
    for kind, figures in s["queries"].items():
        out.append((f"{n} utensils: {kind} p99", f"{figures['p99_ms']:.1f} ms",
                    f"p50 {figures['p50_ms']:.1f}, first {figures['first_max_ms']:.0f} ms",
                    f"< {GOALS['query_p99_ms']:.0f} ms", verdict(figures["p99_ms"] < GOALS["query_p99_ms"])))
    for kind, label in [("gallery", "gallery first page (GET /) p99"), ("api", "API first page p99")]:
        figures = s["web"][kind]
        out.append((f"{n} utensils: {label}", f"{figures['p99_ms']:.1f} ms",
                    f"p50 {figures['p50_ms']:.1f}, first {figures['first_ms']:.0f} ms",
                    f"< {GOALS['gallery_p99_ms']:.0f} ms", verdict(figures["p99_ms"] < GOALS["gallery_p99_ms"])))
    return out
