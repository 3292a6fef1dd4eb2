#!/usr/bin/env python3
"""Dump a Bigtable (emulator) table as one line per cell, by parsing `cbt read`.

Usage:
    cbt_dump.py [--hex] [--project P] [--instance I] TABLE [cbt-read-args ...]
    cbt_dump.py [--hex] --stdin < saved-cbt-read-output      (parse only)

Output, one line per cell, in the order cbt prints them:
    row_key <TAB> family <TAB> qualifier <TAB> ts_micros <TAB> value_hex

cbt's print order is: rows in key order (bytewise), families sorted by NAME
(cbt sorts them client-side; the emulator itself sends them in family-creation
order), qualifiers bytewise, versions newest first.

row_key and qualifier are printed as text with backslash escapes for bytes that
would break the line format: \\ \t \n \r, other control bytes and bytes that
are not valid UTF-8 as \\xNN. With --hex they are printed as plain hex instead
(an empty qualifier is then an empty field). value is always hex.

Extra arguments are passed to `cbt read` (start=, end=, prefix=, regex=,
columns=, count=, cells-per-column=, keys-only=, reversed=, app-profile=).
format-file= and include-stats= are refused: they change the printed format.

Environment: BIGTABLE_EMULATOR_HOST (default 127.0.0.1:8086), CBT (path of the
cbt binary, default "cbt"). cbt is run with TZ=UTC so timestamps are UTC.

Exit status: 0 ok, 1 cbt failed (its stderr is passed through), 2 usage,
3 cbt output could not be parsed unambiguously.

Parsing notes (see bigtable-emulator.md, "cbt read output format"):
  * cbt up to ~v1.23 prints row keys and qualifiers RAW; cbt builds from
    2026-07 on print them Go-%q-quoted. Both are handled (detected from the
    first cell header: a raw header can never start with '"' because family
    names match [-_.a-zA-Z0-9]+).
  * In raw mode a key or qualifier containing a newline is reassembled
    heuristically; a qualifier whose last character is a space and whose
    "family:qualifier" is <= 40 characters cannot be told apart from cbt's
    padding -- such trailing spaces are lost (silently: undetectable).
"""
import os
import re
import subprocess
import sys

SEP = b'-' * 40
TS_RE = re.compile(rb' @ (-?\d+)/(\d\d)/(\d\d)-(\d\d):(\d\d):(\d\d)\.(\d{6})$')
HEADER_START_RE = re.compile(rb'^  (?:[-_.a-zA-Z0-9]+:|")')
FORBIDDEN_ARGS = ('format-file=', 'include-stats=')


class ParseError(Exception):
    pass


# ------------------------------------------------------------------ helpers
def days_from_civil(y, m, d):
    """Days since 1970-01-01 of a proleptic Gregorian date (any year)."""
    y -= m <= 2
    era = (y if y >= 0 else y - 399) // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def ts_micros(match):
    y, mo, d, h, mi, s, us = (int(x) for x in match.groups())
    return ((days_from_civil(y, mo, d) * 24 + h) * 60 + mi) * 60 * 1000000 + s * 1000000 + us


def go_rune_count(b):
    """utf8.RuneCount semantics: every byte of an invalid sequence is one rune."""
    return len(b.decode('utf-8', 'surrogateescape'))


_SIMPLE = {ord('a'): 7, ord('b'): 8, ord('f'): 12, ord('n'): 10, ord('r'): 13,
           ord('t'): 9, ord('v'): 11, ord('\\'): 92, ord('"'): 34, ord("'"): 39}


def go_unquote_prefix(b, pos=0):
    """Decode a Go strconv.Quote literal starting at b[pos] == '"'.
    Returns (decoded_bytes, index just past the closing quote)."""
    if pos >= len(b) or b[pos] != 0x22:
        raise ParseError('expected a quoted string: %r' % b[pos:pos + 60])
    out = bytearray()
    i = pos + 1
    while i < len(b):
        c = b[i]
        if c == 0x22:
            return bytes(out), i + 1
        if c != 0x5c:
            out.append(c)
            i += 1
            continue
        e = b[i + 1] if i + 1 < len(b) else -1
        if e in _SIMPLE:
            out.append(_SIMPLE[e])
            i += 2
        elif e == ord('x'):
            out.append(int(b[i + 2:i + 4], 16))
            i += 4
        elif e == ord('u'):
            out += chr(int(b[i + 2:i + 6], 16)).encode('utf-8', 'surrogatepass')
            i += 6
        elif e == ord('U'):
            out += chr(int(b[i + 2:i + 10], 16)).encode('utf-8', 'surrogatepass')
            i += 10
        elif ord('0') <= e <= ord('7'):
            out.append(int(b[i + 1:i + 4], 8))
            i += 4
        else:
            raise ParseError('bad escape in quoted string: %r' % b[i:i + 10])
    raise ParseError('unterminated quoted string: %r' % b[pos:pos + 60])


def go_unquote_full(b):
    val, end = go_unquote_prefix(b, 0)
    if end != len(b):
        raise ParseError('trailing bytes after quoted string: %r' % b[end:end + 60])
    return val


def esc(b):
    out = []
    for ch in b.decode('utf-8', 'surrogateescape'):
        o = ord(ch)
        if ch == '\\':
            out.append('\\\\')
        elif ch == '\t':
            out.append('\\t')
        elif ch == '\n':
            out.append('\\n')
        elif ch == '\r':
            out.append('\\r')
        elif 0xDC80 <= o <= 0xDCFF:          # invalid UTF-8 byte
            out.append('\\x%02x' % (o - 0xDC00))
        elif o < 0x20 or o == 0x7f:
            out.append('\\x%02x' % o)
        else:
            out.append(ch)
    return ''.join(out)


# ------------------------------------------------------------------ parser
def parse(data, warn=None):
    """Parse `cbt read`/`cbt lookup` stdout (bytes) -> list of
    (row_key, family, qualifier, ts_micros, value) with bytes fields."""
    lines = data.split(b'\n')
    if lines and lines[-1] == b'':
        lines.pop()
    # Detect the dialect from the first cell header.
    quoted = False
    for ln in lines:
        if ln.startswith(b'  ') and TS_RE.search(ln):
            quoted = ln.startswith(b'  "')
            break
    cells = []
    i, n = 0, len(lines)
    while i < n:
        if lines[i] != SEP:
            raise ParseError('line %d: expected %d dashes, got %r' % (i + 1, len(SEP), lines[i][:80]))
        i += 1
        # ---- row key
        if quoted:
            if i >= n:
                raise ParseError('line %d: missing row key' % (i + 1))
            key = go_unquote_full(lines[i])
            i += 1
        else:
            keylines = []
            while i < n and not HEADER_START_RE.match(lines[i]):
                if lines[i] == b'' and (i + 1 >= n or lines[i + 1] == SEP) and keylines:
                    break                       # row without cells (lookup of a missing row)
                keylines.append(lines[i])
                i += 1
            key = b'\n'.join(keylines)
            if len(keylines) > 1 and warn:
                warn('row key reassembled from %d lines (contains newline): %r' % (len(keylines), key))
        # ---- cells
        while True:
            if i >= n:
                break                           # tolerate a missing final blank line
            if lines[i] == b'':
                i += 1
                break                           # blank line ends the row
            start = i
            if not lines[i].startswith(b'  ') or lines[i].startswith(b'    '):
                raise ParseError('line %d: expected a cell header, got %r' % (i + 1, lines[i][:80]))
            while i < n and not TS_RE.search(lines[i]):
                i += 1
                if i - start > 1000:
                    break
            if i >= n or not TS_RE.search(lines[i]):
                raise ParseError('line %d: cell header without timestamp' % (start + 1))
            header = b'\n'.join(lines[start:i + 1])
            i += 1
            m = TS_RE.search(header)
            ts = ts_micros(m)
            field = header[2:m.start()]
            if quoted:
                column, end = go_unquote_prefix(field, 0)
                if field[end:].strip(b' '):
                    raise ParseError('line %d: junk after quoted column: %r' % (start + 1, field[end:]))
            else:
                rc = go_rune_count(field)
                if rc > 40:
                    column = field
                elif rc == 40:
                    column = field.rstrip(b' ')     # padding; see note on trailing spaces
                else:
                    raise ParseError('line %d: column field shorter than 40 runes: %r' % (start + 1, field))
            if b':' not in column:
                raise ParseError('line %d: column without family: %r' % (start + 1, column))
            family, qualifier = column.split(b':', 1)
            if start + 1 != i and warn:
                warn('qualifier reassembled from %d lines (contains newline): %r' % (i - start, column))
            # ---- value
            if i >= n or not lines[i].startswith(b'    "'):
                raise ParseError('line %d: expected a quoted value line, got %r'
                                 % (i + 1, lines[i][:80] if i < n else b'<EOF>'))
            value = go_unquote_full(lines[i][4:])
            i += 1
            cells.append((key, family, qualifier, ts, value))
    return cells


def fmt_line(cell, hexkeys=False):
    key, fam, qual, ts, value = cell
    if hexkeys:
        k, q = key.hex(), qual.hex()
    else:
        k, q = esc(key), esc(qual)
    return '%s\t%s\t%s\t%d\t%s' % (k, fam.decode('utf-8', 'surrogateescape'), q, ts, value.hex())


def main(argv):
    hexkeys = False
    stdin = False
    project, instance = 'p', 'i'
    args = []
    it = iter(argv)
    for a in it:
        if a == '--hex':
            hexkeys = True
        elif a == '--stdin':
            stdin = True
        elif a == '--project':
            project = next(it, None)
        elif a == '--instance':
            instance = next(it, None)
        elif a in ('-h', '--help'):
            sys.stdout.write(__doc__)
            return 0
        else:
            args.append(a)
    warn = lambda msg: sys.stderr.write('cbt_dump: warning: %s\n' % msg)
    if stdin:
        data = sys.stdin.buffer.read()
    else:
        if not args or project is None or instance is None:
            sys.stderr.write(__doc__)
            return 2
        for a in args[1:]:
            if a.startswith(FORBIDDEN_ARGS):
                sys.stderr.write('cbt_dump: %s is not supported (it changes the output format)\n' % a)
                return 2
        env = dict(os.environ)
        env.setdefault('BIGTABLE_EMULATOR_HOST', '127.0.0.1:8086')
        env['TZ'] = 'UTC'
        # -creds: without it cbt spends seconds asking gcloud for credentials
        creds = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'no-creds.json')
        cmd = [env.get('CBT', 'cbt'), '-project', project, '-instance', instance, '-creds', creds,
               'read'] + args
        try:
            p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        except OSError as e:
            sys.stderr.write('cbt_dump: cannot run %s: %s\n' % (cmd[0], e))
            return 1
        err = b''.join(l for l in p.stderr.splitlines(True) if b'-creds flag unset' not in l)
        sys.stderr.buffer.write(err)
        if p.returncode != 0:
            return 1
        data = p.stdout
    try:
        cells = parse(data, warn)
    except (ParseError, ValueError) as e:
        sys.stderr.write('cbt_dump: cannot parse cbt output: %s\n' % e)
        return 3
    out = sys.stdout
    for c in cells:
        out.write(fmt_line(c, hexkeys) + '\n')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
