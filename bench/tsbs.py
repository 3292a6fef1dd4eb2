#!/usr/bin/env python3
"""bench/tsbs.py -- the engine of bench/tsbs.sh (read that file's header first).

TSBS's devops cpu-only use case, reimplemented from TSBS's public definitions
(github.com/timescale/tsbs, which cannot be built here):

  gen     the data generator of pkg/data/usecases/devops (cpu.go, host.go,
          cpu_only_generate_data.go) over pkg/data/usecases/common
          (distribution.go, measurement.go): per host, ten clamped random walks
          CWD(ND(0, 1), 0, 100, U(0, 100)), advanced once per interval; tags
          drawn as host.go draws them; points in time-major order (every host
          at t0, then every host at t1, ...), as TSBS writes them. Values are
          int64(value) as TSBS writes them today (ToPointAllInt64), or with
          --floats the full-precision float64 as it wrote them before.
          Python's random, seeded, stands in for Go's math/rand: the same
          distributions and order of draws, not the same numbers.
  queries the 15 query types of cmd/tsbs_generate_queries/uses/devops with the
          SQL of cmd/tsbs_generate_queries/databases/timescaledb/devops.go
          for plain PostgreSQL (--timescale-use-tags, the default; buckets by
          date_trunc, or with --bucket tsbs by TSBS's non-time_bucket
          expression to_timestamp(((extract(epoch from time)::int)/n)*n)),
          random hosts and windows drawn as devops/common.go and
          internal/utils/time_interval.go draw them, seeded.

The driver keeps one psql session per target, runs every query instance on
every target in turn (the order reversed on every repetition), keeps each
answer and compares it with the heap's: identical text for the row form
(floats within 1e-12 relative with --floats, where sums may run in another
order), floats within 1e-9 relative for the cell form. A mismatch stops the
run with both answers. Timings are psql's \\timing of each statement; with
--cpu also the CPU time the statement cost its backend (/proc/PID/schedstat,
read before and after it; the pid from pg_backend_pid(); parallel workers'
CPU not counted), whose medians and ratios the report shows beside, and
the load's COPY and VACUUM ANALYZE in backend CPU seconds too.
"""

import argparse
import json
import math
import os
import random
import statistics
import subprocess
import sys
import time

METRICS = ["usage_user", "usage_system", "usage_idle", "usage_nice", "usage_iowait",
           "usage_irq", "usage_softirq", "usage_steal", "usage_guest", "usage_guest_nice"]
TAG_KEYS = ["hostname", "region", "datacenter", "rack", "os", "arch", "team",
            "service", "service_version", "service_environment"]
REGIONS = [("us-east-1", ["us-east-1a", "us-east-1b", "us-east-1c", "us-east-1e"]),
           ("us-west-1", ["us-west-1a", "us-west-1b"]),
           ("us-west-2", ["us-west-2a", "us-west-2b", "us-west-2c"]),
           ("eu-west-1", ["eu-west-1a", "eu-west-1b", "eu-west-1c"]),
           ("eu-central-1", ["eu-central-1a", "eu-central-1b"]),
           ("ap-southeast-1", ["ap-southeast-1a", "ap-southeast-1b"]),
           ("ap-southeast-2", ["ap-southeast-2a", "ap-southeast-2b"]),
           ("ap-northeast-1", ["ap-northeast-1a", "ap-northeast-1c"]),
           ("sa-east-1", ["sa-east-1a", "sa-east-1b", "sa-east-1c"])]
TEAMS = ["SF", "NYC", "LON", "CHI"]
OSES = ["Ubuntu16.10", "Ubuntu16.04LTS", "Ubuntu15.10"]
ARCHS = ["x64", "x86"]
ENVS = ["production", "staging", "test"]
START = 1451606400  # 2016-01-01T00:00:00Z, TSBS's default --timestamp-start

# the 15 query types of TSBS's devops use case (main.go), in its order;
# cpu-max-all-32-24 (added later) is not among the 15 of TSBS's README
QUERY_TYPES = ["single-groupby-1-1-1", "single-groupby-1-1-12", "single-groupby-1-8-1",
               "single-groupby-5-1-1", "single-groupby-5-1-12", "single-groupby-5-8-1",
               "cpu-max-all-1", "cpu-max-all-8",
               "double-groupby-1", "double-groupby-5", "double-groupby-all",
               "high-cpu-all", "high-cpu-1", "lastpoint", "groupby-orderby-limit"]


def tstext(sec):
    return time.strftime("%Y-%m-%d %H:%M:%S+00", time.gmtime(sec))


# ------------------------------------------------------------------ data
def generate(a, out):
    rng = random.Random(a.seed)
    hosts = []
    for i in range(a.hosts):
        # NewCPUMeasurement first: one rand.Float64()*100 per field, then the tags
        state = [rng.random() * 100.0 for _ in METRICS]
        region, dcs = REGIONS[rng.randrange(len(REGIONS))]
        dc = rng.choice(dcs)
        rack = str(rng.randrange(100))
        arch = rng.choice(ARCHS)
        os_ = rng.choice(OSES)
        service = str(rng.randrange(20))
        version = str(rng.randrange(2))
        env = rng.choice(ENVS)
        team = rng.choice(TEAMS)
        name = "host_%d" % i
        hosts.append(([name, region, dc, rack, os_, arch, team, service, version, env], state))
    with open(os.path.join(out, "tags.csv"), "w") as f:
        for i, (tags, _) in enumerate(hosts):
            f.write("%d,%s\n" % (i + 1, ",".join(tags)))
    epochs = a.hours * 3600 // a.interval
    gauss = rng.gauss
    fmt = repr if a.floats else (lambda v: str(int(v)))
    names = [h[0][0] for h in hosts]
    with open(os.path.join(out, "cpu.csv"), "w") as fr, open(os.path.join(out, "cells.csv"), "w") as fc:
        for e in range(epochs):
            sec = START + e * a.interval
            ts = tstext(sec)
            rows, cells = [], []
            for i, (_, st) in enumerate(hosts):
                vals = [fmt(v) for v in st]
                rows.append("%s,%d,%s\n" % (ts, i + 1, ",".join(vals)))
                key = "%s#%d,cpu," % (names[i], sec)
                for m, v in zip(METRICS, vals):
                    cells.append("%s%s,%s,%s\n" % (key, m, ts, v))
            fr.write("".join(rows))
            fc.write("".join(cells))
            # Tick: every host, every field, after all hosts were written
            for _, st in hosts:
                for k in range(len(st)):
                    v = st[k] + gauss(0.0, 1.0)
                    st[k] = 100.0 if v > 100.0 else (0.0 if v < 0.0 else v)
    return epochs * a.hosts


# ------------------------------------------------------------------ psql sessions
def backend_cpu_ns(pid):
    """Nanoseconds the process has spent on a CPU (/proc/PID/schedstat)."""
    with open("/proc/%d/schedstat" % pid) as f:
        return int(f.read().split()[0])


class Session:
    """One psql process; run() sends a statement and returns (rows, ms); with
    --cpu, cpu_ms is then the CPU time the statement cost its backend."""
    MARK = "@@tsbs-end@@"

    def __init__(self, a, search_path):
        cmd = [a.psql, "-X", "-q", "-A", "-t", "-F", "|", "-h", a.host, "-p", str(a.port),
               "-U", "postgres", "-v", "ON_ERROR_STOP=1", "postgres"]
        # stderr to a file: notices must never fill a pipe nobody reads
        self.errpath = os.path.join(a.dir, "psql-%s.err" % search_path)
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=open(self.errpath, "a"), text=True, bufsize=1)
        self.search_path = search_path
        self.pid = self.cpu_ms = None
        if a.cpu:
            self.pid = int(self.run("SELECT pg_backend_pid()")[0][0])
        self.run("SET TimeZone = 'UTC'; SET search_path = %s, public; "
                 "SET max_parallel_workers_per_gather = %d;" % (search_path, a.workers))
        self.run("\\pset null '(null)'")
        self.run("\\timing on")

    def run(self, sql):
        # (the backend is idle before and after: its count is complete)
        cpu0 = backend_cpu_ns(self.pid) if self.pid else None
        self.p.stdin.write(sql.rstrip().rstrip(";") + (";" if not sql.lstrip().startswith("\\") else "")
                           + "\n\\echo " + self.MARK + "\n")
        self.p.stdin.flush()
        rows, ms = [], 0.0
        while True:
            line = self.p.stdout.readline()
            if not line:
                self.p.wait()
                with open(self.errpath) as f:
                    err = f.read()[-4000:]
                sys.exit("psql (%s) failed on:\n%s\n%s" % (self.search_path, sql, err))
            line = line.rstrip("\n")
            if line == self.MARK:
                if cpu0 is not None:
                    self.cpu_ms = (backend_cpu_ns(self.pid) - cpu0) / 1e6
                return rows, ms
            if line.startswith("Time: ") and line.endswith(" ms") or " ms (" in line and line.startswith("Time: "):
                ms += float(line.split()[1])
            else:
                rows.append(line)

    def close(self):
        self.p.stdin.close()
        self.p.wait()


# ------------------------------------------------------------------ answers
def same(x, y, rel):
    if x == y:
        return True
    if rel == 0:
        return False
    try:
        a, b = float(x), float(y)
    except ValueError:
        return False
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-300)


def same_answer(ref, got, ordered, rel):
    if not ordered:
        ref, got = sorted(ref), sorted(got)
    if len(ref) != len(got):
        return False
    for r, g in zip(ref, got):
        rf, gf = r.split("|"), g.split("|")
        if len(rf) != len(gf) or not all(same(x, y, rel) for x, y in zip(rf, gf)):
            return False
    return True


# ------------------------------------------------------------------ queries
class Gen:
    def __init__(self, a, rng):
        self.a, self.rng = a, rng
        self.lo_ns = START * 10**9
        self.hi_ns = (START + a.hours * 3600) * 10**9

    def hosts(self, n):
        # common.GetRandomSubsetPerm: n distinct of [0, scale)
        n = min(n, self.a.hosts)
        seen, res = set(), []
        while len(res) < n:
            k = self.rng.randrange(self.a.hosts)
            if k not in seen:
                seen.add(k)
                res.append("host_%d" % k)
        return res

    def window(self, hours):
        # TimeInterval.RandWindow; a window longer than the data (the smoke
        # mode) is cut to half the data's span
        w = hours * 3600 * 10**9
        span = self.hi_ns - self.lo_ns
        if w >= span:
            w = span // 2
        s = self.lo_ns + self.rng.randrange(span - w)
        return s, s + w


def gotime(ns):
    # Go's "2006-01-02 15:04:05.999999 -0700": microseconds, trailing zeros cut
    sec, rest = divmod(ns, 10**9)
    us = rest // 1000
    frac = ("%06d" % us).rstrip("0")
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(sec)) + ("." + frac if frac else "") + " +0000"


def key_secs(ns_lo, ns_hi):
    """Whole seconds s with lo <= s < hi for the microsecond literals of gotime."""
    lo_us, hi_us = ns_lo // 1000, ns_hi // 1000
    return -(-lo_us // 10**6), -(-hi_us // 10**6)


def bucket(a, n, col):
    if a.bucket == "tsbs":
        return "to_timestamp(((extract(epoch from %s)::int)/%d)*%d)" % (col, n, n)
    return "date_trunc('%s', %s)" % ("minute" if n == 60 else "hour", col)


def pivot(metrics, agg, alias_fmt):
    return ",\n          ".join("%s(value) FILTER (WHERE qualifier = '%s') AS %s"
                               % (agg, m, alias_fmt % m) for m in metrics)


def qual_where(metrics):
    """the qualifiers as a condition the Wide Scan applies before forming tuples"""
    if len(metrics) == len(METRICS):
        return ""
    return " AND qualifier IN (%s)" % ", ".join("'%s'" % m for m in metrics)


def host_array(hostnames):
    return "ARRAY[%s]" % ", ".join("'%s'" % h for h in sorted(hostnames))


def bucketed(a, n, agg, metrics, keys, source):
    """Aggregate cells per (bucket, keys..., qualifier), then turn each
    group's qualifiers into columns: one aggregate per cell, not one FILTER
    per metric and cell"""
    name = "minute" if n == 60 else "hour"
    return """SELECT %s, %s
          %s
        FROM (SELECT %s AS %s, %squalifier, %s(value) AS v
          %s
          GROUP BY %s) g
        GROUP BY %s""" % (
        name, "".join(k + ", " for k in keys),
        ",\n          ".join("max(v) FILTER (WHERE qualifier = '%s') AS %s" % (m, agg_alias(agg, m)) for m in metrics),
        bucket(a, n, "ts"), name, "".join(k + ", " for k in keys), agg, source,
        ", ".join(str(i) for i in range(1, len(keys) + 3)),
        ", ".join(str(i) for i in range(1, len(keys) + 2)))


def agg_alias(agg, m):
    return ("mean_" if agg == "avg" else agg + "_") + m


def host_where(hostnames):
    # getHostWhereWithHostnames with UseTags
    return "tags_id IN (SELECT id FROM tags WHERE hostname IN (%s))" % ",".join("'%s'" % h for h in hostnames)


def make_queries(a):
    """[(type, [(heap_sql, cell_sql, ordered), ...])]"""
    rng = random.Random(a.seed + 1)
    g = Gen(a, rng)
    out = []
    for qt in a.queries:
        inst = []
        for _ in range(a.runs):  # lastpoint: the same query each time
            inst.append(make_query(a, g, qt))
        out.append((qt, inst))
    return out


def make_query(a, g, qt):
    p = qt.split("-")
    if qt.startswith("single-groupby") or qt.startswith("cpu-max-all"):
        if qt.startswith("single-groupby"):
            nmetrics, nhosts, hours, n = int(p[2]), int(p[3]), int(p[4]), 60
        else:
            nmetrics, nhosts, hours, n = len(METRICS), int(p[3]), 8, 3600
        metrics = METRICS[:nmetrics]
        lo, hi = g.window(hours)
        hostnames = g.hosts(nhosts)
        name = "minute" if n == 60 else "hour"
        heap = """SELECT %s AS %s,
        %s
        FROM cpu
        WHERE %s AND time >= '%s' AND time < '%s'
        GROUP BY %s ORDER BY %s%s""" % (
            bucket(a, n, "time"), name,
            ", ".join("max(%s) as max_%s" % (m, m) for m in metrics),
            host_where(hostnames), gotime(lo), gotime(hi), name, name, " ASC" if n == 60 else "")
        s0, s1 = key_secs(lo, hi)
        # a key range per host (a parameterized Wide Scan per element; OFFSET
        # 0 keeps the subquery a subquery, so the planner cannot turn the
        # ranges into a join filter over a full scan, as it did for all hosts)
        cell = bucketed(a, n, "max", metrics, [], """FROM unnest(%s) h CROSS JOIN LATERAL (
            SELECT ts, qualifier, value FROM cpu
             WHERE row_key >= h || '#%d' AND row_key < h || '#%d'%s OFFSET 0) c""" % (
            host_array(hostnames), s0, s1, qual_where(metrics))) + " ORDER BY 1"
        return heap, cell, True
    if qt.startswith("double-groupby"):
        nmetrics = len(METRICS) if p[2] == "all" else int(p[2])
        metrics = METRICS[:nmetrics]
        lo, hi = g.window(12)
        heap = """
        WITH cpu_avg AS (
          SELECT %s as hour, tags_id,
          %s
          FROM cpu
          WHERE time >= '%s' AND time < '%s'
          GROUP BY 1, 2
        )
        SELECT hour, tags.hostname, %s
        FROM cpu_avg
        JOIN tags ON cpu_avg.tags_id = tags.id
        ORDER BY hour, tags.hostname""" % (
            bucket(a, 3600, "time"), ", ".join("avg(%s) as mean_%s" % (m, m) for m in metrics),
            gotime(lo), gotime(hi), ", ".join("mean_" + m for m in metrics))
        s0, s1 = key_secs(lo, hi)
        # a key range per host (a parameterized Wide Scan per row of tags),
        # grouped inside it: small groups, hashed
        cell = """SELECT b.hour, t.hostname, %s
        FROM tags t CROSS JOIN LATERAL (%s) b
        ORDER BY b.hour, t.hostname""" % (
            ", ".join("b.mean_" + m for m in metrics),
            bucketed(a, 3600, "avg", metrics, [], """FROM cpu
             WHERE row_key >= t.hostname || '#%d' AND row_key < t.hostname || '#%d'%s""" % (
                s0, s1, qual_where(metrics))))
        return heap, cell, True
    if qt.startswith("high-cpu"):
        nhosts = 0 if p[2] == "all" else int(p[2])
        hostnames = g.hosts(nhosts) if nhosts else []
        lo, hi = g.window(12)
        heap = "SELECT * FROM cpu WHERE usage_user > 90.0 and time >= '%s' AND time < '%s' %s" % (
            gotime(lo), gotime(hi), ("AND " + host_where(hostnames)) if nhosts else "")
        s0, s1 = key_secs(lo, hi)
        # the keys of the readings above 90 (usage_user cells only, the
        # value tested on them), then those rows read by key and pivoted
        # (all hosts: every host of tags, the host registry of TSBS's schema)
        hosts_from = "unnest(%s) h" % host_array(hostnames) if nhosts else "(SELECT hostname FROM tags) h(h)"
        hot = ("SELECT row_key FROM %s CROSS JOIN LATERAL (SELECT row_key FROM cpu "
               "WHERE row_key >= h || '#%d' AND row_key < h || '#%d' AND qualifier = 'usage_user' "
               "AND value > 90.0 OFFSET 0) k" % (hosts_from, s0, s1))
        cell = """SELECT r.time, t.id AS tags_id, %s
        FROM (SELECT ts AS time, split_part(row_key, '#', 1) AS hostname,
          %s
          FROM wide.read_rows(NULL::cpu, keys => ARRAY(%s))
          GROUP BY row_key, ts) r
        JOIN tags t ON t.hostname = r.hostname""" % (
            ", ".join("r." + m for m in METRICS), pivot(METRICS, "max", "%s"), hot)
        return heap, cell, False
    if qt == "lastpoint":
        heap = ("SELECT DISTINCT ON (t.hostname) * FROM tags t INNER JOIN LATERAL(SELECT * FROM cpu c "
                "WHERE c.tags_id = t.id ORDER BY time DESC LIMIT 1) AS b ON true ORDER BY t.hostname, b.time DESC")
        # the newest row of each host: one reversed read of one row
        cell = """SELECT t.*, b.* FROM tags t CROSS JOIN LATERAL (
          SELECT ts AS time, t.id AS tags_id,
          %s
          FROM wide.read_latest(NULL::cpu, t.hostname, 1, newest_first => false)
          GROUP BY ts) b
        ORDER BY t.hostname""" % pivot(METRICS, "max", "%s")
        return heap, cell, True
    if qt == "groupby-orderby-limit":
        lo, hi = g.window(1)
        heap = """SELECT %s AS minute, max(usage_user)
        FROM cpu
        WHERE time < '%s'
        GROUP BY minute
        ORDER BY minute DESC
        LIMIT 5""" % (bucket(a, 60, "time"), gotime(hi))
        # the five newest minutes are those of the last five minutes before
        # the end if these hold five buckets (read as a key range per host
        # of tags, the host registry); else (gaps in the data) the whole
        # table before the end is grouped: the answer is exact either way
        end_s = key_secs(hi, hi)[1]
        recent = (end_s - 1) // 60 * 60 - 4 * 60
        cell = """WITH recent AS (
          SELECT %s AS minute, max(value) AS max
          FROM tags t CROSS JOIN LATERAL (SELECT ts, value FROM cpu
            WHERE row_key >= t.hostname || '#%d' AND row_key < t.hostname || '#%d'
              AND qualifier = 'usage_user' OFFSET 0) c
          GROUP BY 1)
        SELECT * FROM (
          SELECT * FROM recent WHERE (SELECT count(*) FROM recent) >= 5
          UNION ALL
          SELECT * FROM (SELECT %s AS minute, max(value) AS max
            FROM cpu WHERE qualifier = 'usage_user' AND ts < '%s' GROUP BY 1) everything
          WHERE (SELECT count(*) FROM recent) < 5) u
        ORDER BY minute DESC LIMIT 5""" % (bucket(a, 60, "ts"), recent, end_s,
                                         bucket(a, 60, "ts"), gotime(hi))
        return heap, cell, True
    raise SystemExit("unknown query type " + qt)


# ------------------------------------------------------------------ load
def load(a, targets):
    """Create, COPY, VACUUM ANALYZE; returns {target: {size, copy, vacuum}}."""
    s = Session(a, "public")
    d = a.dir
    s.run("CREATE EXTENSION IF NOT EXISTS wide")
    tags_ddl = ("CREATE TABLE tags(id SERIAL PRIMARY KEY, %s);"
                "CREATE UNIQUE INDEX uniq1 ON tags(%s);"
                "CREATE INDEX ON tags(hostname);"
                "COPY tags FROM '%s/tags.csv' (FORMAT csv);"
                "SELECT setval('tags_id_seq', %d);"
                "ANALYZE tags") % (", ".join(k + " TEXT" for k in TAG_KEYS), ",".join(TAG_KEYS), d, a.hosts)
    metrics_ddl = ", ".join(m + " DOUBLE PRECISION" for m in METRICS)
    res = {}
    for t in targets:
        s.run("CREATE SCHEMA %s; SET search_path = %s, public; %s" % (t, t, tags_ddl))
        if t == "heap":
            # pkg/targets/timescaledb/creator.go with --use-hypertable=false:
            # the partition index and the time index (additional_tags, a
            # JSONB column that stays NULL, is left out: see tsbs.sh)
            s.run("CREATE TABLE cpu (time timestamptz, tags_id integer, %s);"
                  "CREATE INDEX ON cpu(tags_id, \"time\" DESC);"
                  "CREATE INDEX ON cpu(\"time\" DESC)" % metrics_ddl)
            copy = "COPY cpu FROM '%s/cpu.csv' (FORMAT csv)" % d
            vac = ["VACUUM ANALYZE cpu"]
            rel = "cpu"
        elif t == "cells":
            s.run("CREATE TABLE cpu (row_key text, family text, qualifier text, ts timestamptz, "
                  "value float8) USING wide;"
                  "SELECT wide.create_family('cpu', 'cpu', max_versions => 1)")
            copy = "COPY cpu FROM '%s/cells.csv' (FORMAT csv)" % d
            vac = ["VACUUM ANALYZE cpu"]
            rel = "cpu"
        else:
            s.run("CREATE TABLE cpu_cells (row_key text, family text, qualifier text, ts timestamptz, "
                  "value float8) USING wide;"
                  "SELECT wide.create_family('cpu_cells', 'cpu', max_versions => 1);"
                  "CREATE FOREIGN TABLE cpu (time timestamptz NOT NULL, tags_id int4 NOT NULL, %s) "
                  "SERVER wide_rows OPTIONS (cells 'cpu_cells', family 'cpu', key 'tags_id,time')"
                  % ", ".join(m + " float8" for m in METRICS))
            copy = "COPY cpu FROM '%s/cpu.csv' (FORMAT csv)" % d
            vac = ["VACUUM ANALYZE cpu_cells", "ANALYZE cpu"]
            rel = "cpu_cells"
        s.run("CHECKPOINT")
        _, copy_ms = s.run(copy)
        copy_cpu = s.cpu_ms
        vac_ms = vac_cpu = 0.0
        for v in vac:
            vac_ms += s.run(v)[1]
            vac_cpu += s.cpu_ms or 0.0
        size = int(s.run("SELECT pg_total_relation_size('%s')" % rel)[0][0])
        res[t] = {"copy": a.readings / (copy_ms / 1000.0), "vacuum": vac_ms / 1000.0, "size": size}
        if a.cpu:
            # (the load's backend: parallel workers are not counted, as for queries)
            res[t]["copy_cpu"] = copy_cpu / 1000.0
            res[t]["vacuum_cpu"] = vac_cpu / 1000.0
        print("  %-5s COPY %.1f s (%.0f readings/s), VACUUM ANALYZE %.2f s, %.1f MB"
              % (t, copy_ms / 1000, res[t]["copy"], res[t]["vacuum"], size / 2**20), flush=True)
        if a.compact and t != "heap":
            res[t]["compact"] = s.run("SELECT FROM wide.compact('%s', major => true)" % rel)[1] / 1000.0
            res[t]["csize"] = int(s.run("SELECT pg_total_relation_size('%s')" % rel)[0][0])
            print("  %-5s wide.compact %.2f s, %.1f MB" % (t, res[t]["compact"], res[t]["csize"] / 2**20),
                  flush=True)
    s.run("CHECKPOINT")
    s.close()
    return res


# ------------------------------------------------------------------ run
def run_queries(a, targets, queries):
    sess = {t: Session(a, t) for t in targets}
    times = {}
    cpus = {}
    for qt, inst in queries:
        times[qt] = {t: [] for t in targets}
        cpus[qt] = {t: [] for t in targets}
        nrows = []
        for qi, (heap, cell, ordered) in enumerate(inst):
            sql = {"heap": heap, "rows": heap, "cells": cell}
            # the first parameter set of a type runs once untimed first
            # (the first use of the type's plan shapes and blocks); the
            # targets' order alternates from run to run
            for rep in range(0 if qi == 0 else 1, a.reps + 1):
                order = targets if (qi + rep) % 2 == 0 else targets[::-1]
                answers = {}
                for t in order:
                    rows, ms = sess[t].run(sql[t])
                    answers[t] = rows
                    if rep > 0:
                        times[qt][t].append(ms)
                        if a.cpu:
                            cpus[qt][t].append(sess[t].cpu_ms)
                ref = answers.get("heap")
                for t in targets:
                    if t == "heap" or ref is None:
                        continue
                    rel = 1e-9 if t == "cells" else (1e-12 if a.floats else 0)
                    if not same_answer(ref, answers[t], ordered, rel):
                        with open(os.path.join(a.dir, "mismatch.txt"), "w") as f:
                            f.write("-- heap\n%s\n%s\n-- %s\n%s\n%s\n" % (
                                heap, "\n".join(ref), t, sql[t], "\n".join(answers[t])))
                        sys.exit("DIFFERENT ANSWERS: %s instance %d, heap %d rows, %s %d rows; "
                                 "both in %s/mismatch.txt" % (qt, qi, len(ref), t, len(answers[t]), a.dir))
                if rep == 1:
                    nrows.append(len(ref if ref is not None else answers[targets[0]]))
        med = {t: statistics.median(times[qt][t]) for t in targets}
        cpu = ("  CPU " + "  ".join("%s %.2f ms" % (t, statistics.median(cpus[qt][t])) for t in targets)
               if a.cpu else "")
        print("  %-22s %s%s  (rows of the answers: %s)" % (
            qt, "  ".join("%s %.2f ms" % (t, med[t]) for t in targets), cpu, "/".join(map(str, nrows))),
            flush=True)
    for s in sess.values():
        s.close()
    return times, (cpus if a.cpu else None)


def report(a, targets, load_res, times, cpus):
    cols = targets
    others = [t for t in targets if t != "heap"]
    head = "| |" + "".join(" %s |" % t for t in cols) + "".join(" %s/heap |" % t for t in others)
    print()
    print("TSBS devops cpu-only, %d hosts x %d h at %d s: %d readings, %s values, %d instance(s) x %d "
          "run(s) per query type, medians; %s buckets, %d parallel worker(s)%s"
          % (a.hosts, a.hours, a.interval, a.readings, "float" if a.floats else "integer",
             a.runs, a.reps, a.bucket, a.workers, "; wide compacted after VACUUM" if a.compact else ""))
    print()
    print(head)
    print("|---|" + "---:|" * (len(cols) + len(others)))

    def line(label, vals, fmt, ratio=True):
        cells = [fmt % vals[t] if t in vals else "" for t in cols]
        rs = []
        for t in others:
            rs.append("%.3f" % (vals[t] / vals["heap"]) if ratio and "heap" in vals and t in vals and vals["heap"] else "")
        print("| %s | %s |%s" % (label, " | ".join(cells), "".join(" %s |" % r for r in rs)))

    if load_res:
        line("size after VACUUM ANALYZE, MB", {t: load_res[t]["size"] / 2**20 for t in load_res}, "%.1f")
        line("COPY, readings/s", {t: load_res[t]["copy"] for t in load_res}, "%.0f")
        line("VACUUM ANALYZE, s", {t: load_res[t]["vacuum"] for t in load_res}, "%.2f")
        if a.cpu:
            line("COPY, backend CPU s", {t: load_res[t]["copy_cpu"] for t in load_res}, "%.2f")
            line("VACUUM ANALYZE, backend CPU s", {t: load_res[t]["vacuum_cpu"] for t in load_res}, "%.2f")
        if a.compact:
            line("then wide.compact(major), s", {t: load_res[t]["compact"] for t in load_res if t != "heap"},
                 "%.2f", False)
            line("size after compaction, MB", {t: load_res[t].get("csize", load_res[t]["size"]) / 2**20
                                               for t in load_res}, "%.1f")
    def queries(label, runs, what):
        ratios = {t: [] for t in others}
        for qt in runs:
            med = {t: statistics.median(runs[qt][t]) for t in targets}
            for t in others:
                if med.get("heap"):
                    ratios[t].append(med[t] / med["heap"])
            line(qt + label, med, "%.2f")
        gm = {t: math.exp(sum(math.log(max(r, 1e-9)) for r in ratios[t]) / len(ratios[t]))
              for t in others if ratios[t]}
        if gm:
            print("| geometric mean of the query ratios%s | %s |%s" % (
                what, " | ".join("" for _ in cols), "".join(" %.3f |" % gm[t] if t in gm else " |" for t in others)))

    queries(", ms", times, "")
    if cpus:
        queries(", backend CPU ms", cpus, " (CPU)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("step", choices=["gen", "bench"])
    ap.add_argument("--dir", required=True)
    ap.add_argument("--hosts", type=int, default=100)
    ap.add_argument("--hours", type=int, default=24)
    ap.add_argument("--interval", type=int, default=10)
    ap.add_argument("--floats", action="store_true")
    ap.add_argument("--compact", action="store_true")
    ap.add_argument("--seed", type=int, default=123)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--bucket", choices=["date_trunc", "tsbs"], default="date_trunc")
    ap.add_argument("--workers", type=int, default=0)
    ap.add_argument("--targets", default="heap,cells,rows")
    ap.add_argument("--queries", default=",".join(QUERY_TYPES))
    ap.add_argument("--psql", default="psql")
    ap.add_argument("--host")
    ap.add_argument("--port", type=int)
    ap.add_argument("--cpu", action="store_true")
    a = ap.parse_args()
    a.queries = [q for q in a.queries.split(",") if q]
    a.readings = a.hosts * (a.hours * 3600 // a.interval)
    if a.step == "gen":
        t0 = time.time()
        n = generate(a, a.dir)
        print("  %d readings (%d cells) in %.1f s" % (n, n * len(METRICS), time.time() - t0), flush=True)
        return
    targets = [t for t in a.targets.split(",") if t]
    if "heap" not in targets:
        sys.exit("the heap is the reference: --targets must include heap")
    s = Session(a, "public")
    s.run("CREATE EXTENSION IF NOT EXISTS wide")
    if "rows" in targets:
        if not s.run("SELECT 1 FROM pg_foreign_server WHERE srvname = 'wide_rows'")[0]:
            print("  rows: SKIPPED -- the server wide_rows does not exist (the row form is not built "
                  "into this wide); measuring heap and cells only", flush=True)
            targets.remove("rows")
    s.close()
    load_res = load(a, targets)
    times, cpus = run_queries(a, targets, make_queries(a))
    report(a, targets, load_res, times, cpus)


if __name__ == "__main__":
    main()
