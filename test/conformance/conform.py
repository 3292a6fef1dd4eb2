#!/usr/bin/env python3
"""Conformance of wide with the Bigtable emulator, cell by cell.

Usage: conform.py --psql "psql -h HOST -p PORT -U USER -d DB" --emulator HOST:PORT
                  scenario.scn ...
       conform.py --grpc HOST:PORT --emulator HOST:PORT scenario.scn ...

Each scenario is replayed against the Bigtable emulator (through `cbt`) and
against a wide table (through psql); after every `read` line, both sides'
results (row key, family, qualifier, timestamp, value, all as bytes) must be
equal, or the script reports the difference and fails.  With --grpc instead
of --psql, the wide side is wide-bigtable (docs/grpc.md) at HOST:PORT, driven
by the same cbt commands and reads as the emulator.

Scenario lines (shell words; a line starting with '#' is a comment):

    table families=f,g:maxversions=2,s:never:intsum [keys=bytea]
                                                      new table for the scenario
                                                      (keys=bytea: a bytea row_key)
    set ROW fam:qual=value@ts ...                     SetCell (one MutateRow)
    addtocell ROW fam:qual=int@ts ...                 AddToCell
    deletecolumn ROW fam qual                         DeleteFromColumn, all versions
    deleterow ROW                                     DeleteFromRow
    read [start=K] [end=K] [prefix=P] [count=N] [regex=RE] [columns=SPEC]
         [cells-per-column=N] [keys-only=true] [reversed=true]
                                                      compare a read
    gc                                                wait for the emulator's lazy GC

Row keys (and start=, end=, prefix=) may hold %XX escapes for any byte, so
keys that are not valid UTF-8 can be written (cbt gets the raw bytes; wide a
bytea key, read back by its bytes).

Reads map to wide.read_rows the way cbt builds its request: a row range or
prefix, rows_limit = count, and a chain of cells_per_column_limit, row key
regex, the columns filter (family and qualifier regexes, an interleave for
several) and strip_value, in that order.  Timestamps are microseconds and
must be whole milliseconds (the emulator refuses others).
"""
import argparse
import json
import os
import shlex
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CREDS = os.path.join(HERE, 'no-creds.json')


class Side:
    def __init__(self, args):
        self.args = args
        self.table = None
        self.bytea = False

    def key(self, k):
        """a row key (with %XX escapes) as an SQL literal of the key column's type"""
        if self.bytea:
            return "'\\x%s'::bytea" % unescape(k).hex()
        return lit(k)

    # ---------------------------------------------------------- emulator
    def cbt(self, *words, check=True, addr=None):
        env = dict(os.environ, BIGTABLE_EMULATOR_HOST=addr or self.args.emulator, TZ='UTC')
        # -creds: without it cbt spends seconds asking gcloud for credentials
        p = subprocess.run(['cbt', '-project', 'p', '-instance', 'i', '-creds', CREDS] +
                           [unescape(w) for w in words], env=env, capture_output=True)
        if check and p.returncode != 0:
            raise RuntimeError('cbt %s: %s' % (' '.join(words), p.stderr.decode(errors='replace')))
        return p

    def emu_read(self, opts, addr=None):
        env = dict(os.environ, BIGTABLE_EMULATOR_HOST=addr or self.args.emulator)
        cmd = [sys.executable, os.path.join(HERE, 'cbt_dump.py'), '--hex',
               '--project', 'p', '--instance', 'i', self.table]
        cmd += [os.fsdecode(b'%s=%s' % (k.encode(), unescape(v) if k in ('start', 'end', 'prefix')
                                          else v.encode())) for k, v in opts]
        p = subprocess.run(cmd, env=env, capture_output=True)
        if p.returncode != 0:
            raise RuntimeError('cbt_dump: ' + p.stderr.decode(errors='replace'))
        return [tuple(l.split('\t')) for l in p.stdout.decode().splitlines() if l]

    # ---------------------------------------------------------- wide
    def psql(self, sql):
        if self.args.grpc:
            return ''		# the wide side is driven through wide-bigtable by cbt
        p = subprocess.run(shlex.split(self.args.psql) + ['-X', '-q', '-At', '-F', '\t',
                                                          '-v', 'ON_ERROR_STOP=1', '-c', sql],
                           capture_output=True)
        if p.returncode != 0:
            raise RuntimeError('psql: %s\n%s' % (p.stderr.decode(errors='replace'), sql))
        return p.stdout.decode()

    def wide_read(self, opts):
        args = []
        chain = []
        for k, v in opts:
            if k == 'start':
                args.append('start_key => %s' % self.key(v))
            elif k == 'end':
                args.append('end_key => %s' % self.key(v))
            elif k == 'prefix':
                args.append('prefix => %s' % self.key(v))
            elif k == 'count':
                args.append('"limit" => %d' % int(v))
            elif k == 'reversed' and v == 'true':
                args.append('reversed => true')
        d = dict(opts)
        if 'cells-per-column' in d:
            chain.append({'cells_per_column_limit_filter': int(d['cells-per-column'])})
        if 'regex' in d:
            chain.append({'row_key_regex_filter': d['regex']})
        if 'columns' in d:
            parts = []
            for spec in d['columns'].split(','):
                if ':' in spec:
                    fam, qual = spec.split(':', 1)
                else:
                    fam, qual = '', spec
                sub = []
                if fam:
                    sub.append({'family_name_regex_filter': fam})
                if qual:
                    sub.append({'column_qualifier_regex_filter': qual})
                parts.append(sub[0] if len(sub) == 1 else {'chain': sub})
            chain.append(parts[0] if len(parts) == 1 else {'interleave': parts})
        if d.get('keys-only') == 'true':
            chain.append({'strip_value_transformer': True})
        if chain:
            f = chain[0] if len(chain) == 1 else {'chain': chain}
            args.append('filter => %s::jsonb' % lit(json.dumps(f)))
        sql = ("SELECT encode(%s, 'hex'), family, "
               % ('row_key' if self.bytea else "convert_to(row_key, 'UTF8')") +
               "encode(convert_to(qualifier, 'UTF8'), 'hex'), ts, encode(value, 'hex') "
               "FROM wide.read_rows(%s)" % ', '.join(['NULL::%s' % self.table] + args))
        return [tuple(l.split('\t')) for l in self.psql(sql).splitlines() if l]


def unescape(s):
    """%XX escapes as bytes; anything else as its UTF-8 bytes"""
    if isinstance(s, bytes):
        return s
    out = bytearray()
    i = 0
    while i < len(s):
        if s[i] == '%' and i + 2 < len(s) + 0 and all(c in '0123456789abcdefABCDEF' for c in s[i + 1:i + 3]) and len(s[i + 1:i + 3]) == 2:
            out.append(int(s[i + 1:i + 3], 16))
            i += 3
        else:
            out += s[i].encode()
            i += 1
    return bytes(out)


def lit(s):
    return "'" + s.replace("'", "''") + "'"


def split_cell(arg):
    """fam:qual=value@ts -> (fam, qual, value, ts)"""
    fam, rest = arg.split(':', 1)
    qual, rest = rest.split('=', 1)
    value, ts = rest.rsplit('@', 1)
    return fam, qual, value, int(ts)


def family_sql(table, spec):
    """fam[:policy[:type]] as create_family"""
    parts = spec.split(':')
    args = [lit(table), lit(parts[0])]
    if len(parts) > 1 and parts[1] not in ('', 'never'):
        rules = parts[1].replace(' ', '').replace('||', 'or')
        for rule in rules.split('or'):
            k, v = rule.split('=')
            if k == 'maxversions':
                args.append('max_versions => %d' % int(v))
            elif k == 'maxage':
                args.append("max_age => %s" % lit(v.replace('h', ' hours').replace('d', ' days')))
    if len(parts) > 2:
        args.append("aggregate => %s" % lit({'intsum': 'sum', 'intmin': 'min',
                                            'intmax': 'max', 'inthll': 'hll'}[parts[2]]))
    return 'SELECT wide.create_family(%s);' % ', '.join(args)


def mirror(side, *words, check=True):
    """a cbt command against the emulator, and against wide-bigtable with --grpc"""
    p = side.cbt(*words, check=check)
    if side.args.grpc:
        side.cbt(*words, check=check, addr=side.args.grpc)
    return p


def run_scenario(side, path):
    name = os.path.splitext(os.path.basename(path))[0]
    failures = 0
    reads = 0
    for lineno, line in enumerate(open(path, encoding='utf-8'), 1):
        if line.lstrip().startswith('#'):
            continue
        words = shlex.split(line)
        if not words:
            continue
        op, rest = words[0], words[1:]
        where = '%s:%d' % (os.path.basename(path), lineno)
        if op == 'table':
            side.table = 'conf_%s_%d' % (name, lineno)
            topts = dict(w.split('=', 1) for w in rest)
            fams = topts.get('families', '')
            side.bytea = topts.get('keys') == 'bytea'
            mirror(side, 'deletetable', side.table, check=False)
            mirror(side, 'createtable', side.table, 'families=' + fams)
            # the emulator starts collecting only after a ModifyColumnFamilies
            for spec in fams.split(','):
                parts = spec.split(':')
                if len(parts) == 2 and parts[1] not in ('', 'never'):
                    mirror(side, 'setgcpolicy', side.table, parts[0],
                             *parts[1].replace('||', ' or ').split())
            sql = ('DROP TABLE IF EXISTS %s; ' % side.table) + ('CREATE TABLE %s (row_key %s, family text, qualifier text, ts int8, '
                   'value bytea) USING wide;' % (side.table, 'bytea' if side.bytea else 'text'))
            for spec in fams.split(','):
                sql += family_sql(side.table, spec)
            side.psql(sql)
        elif op == 'set':
            mirror(side, 'set', side.table, rest[0], *rest[1:])
            values = []
            for c in rest[1:]:
                fam, qual, value, ts = split_cell(c)
                values.append('(%s, %s, %s, %d, convert_to(%s, \'UTF8\'))'
                              % (side.key(rest[0]), lit(fam), lit(qual), ts, lit(value)))
            side.psql('INSERT INTO %s VALUES %s;' % (side.table, ', '.join(values)))
        elif op == 'addtocell':
            mirror(side, 'addtocell', side.table, rest[0], *rest[1:])
            sql = ''
            for c in rest[1:]:
                fam, qual, value, ts = split_cell(c)
                sql += 'SELECT wide.add_to_cell(%s, %s, %s, %s, %d, %d);' % (
                    lit(side.table), side.key(rest[0]), lit(fam), lit(qual), ts, int(value))
            side.psql(sql)
        elif op == 'deletecolumn':
            mirror(side, 'deletecolumn', side.table, *rest)
            side.psql('SELECT wide.delete_cells(%s, %s, %s, %s);'
                      % (lit(side.table), side.key(rest[0]), lit(rest[1]), lit(rest[2])))
        elif op == 'deleterow':
            mirror(side, 'deleterow', side.table, rest[0])
            side.psql('SELECT wide.delete_row(%s, %s);' % (lit(side.table), side.key(rest[0])))
        elif op == 'gc':
            time.sleep(2.0)		# the emulator collects 0.5-1.5 s after a write
        elif op == 'read':
            opts = [tuple(w.split('=', 1)) for w in rest]
            emu = side.emu_read(opts)
            wide = (side.emu_read(opts, addr=side.args.grpc) if side.args.grpc
                    else side.wide_read(opts))
            reads += 1
            if emu != wide:
                failures += 1
                print('MISMATCH at %s: read %s' % (where, ' '.join(rest)))
                print('  emulator (%d cells):' % len(emu))
                for c in emu:
                    print('    ' + '\t'.join(c))
                print('  wide (%d cells):' % len(wide))
                for c in wide:
                    print('    ' + '\t'.join(c))
        else:
            raise RuntimeError('%s: unknown operation %r' % (where, op))
    print('%-28s %3d reads, %s' % (name, reads, 'ok' if failures == 0 else
                                   '%d MISMATCHED' % failures))
    return failures


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--psql')
    ap.add_argument('--grpc', help='HOST:PORT of wide-bigtable (instead of --psql)')
    ap.add_argument('--emulator', required=True)
    ap.add_argument('scenarios', nargs='+')
    args = ap.parse_args()
    if not args.psql and not args.grpc:
        ap.error('give --psql or --grpc')
    side = Side(args)
    failures = 0
    for path in args.scenarios:
        failures += run_scenario(side, path)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
