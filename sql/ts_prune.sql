--
-- ts_prune: time pruning.  Conditions on ts (=, <, <=, >, >=, BETWEEN;
-- constants, parameters, stable expressions) give the Wide Scan a window
-- of timestamps; runs, index blocks, data blocks and write-area records
-- outside it are skipped, except where the merger needs them (tombstones;
-- newer versions when a family counts versions).  read_rows skips them
-- for a timestamp_range_filter.  The reader returns exactly the window's
-- cells, so the conditions are no Filter.
--
\set SHOW_CONTEXT never
SET wide.block_size = 1024;

-- a time series: 20 hosts x 240 minutes x 3 metrics, key host#minute
CREATE TABLE tsm (row_key text, family text, qualifier text, ts int8, value float8) USING wide;
SELECT wide.create_family('tsm', 'm');
CREATE TABLE tsh (row_key text COLLATE "C", family text COLLATE "C",
                  qualifier text COLLATE "C", ts int8, value float8);
INSERT INTO tsh
SELECT format('host%s#%s', lpad(h::text, 2, '0'), lpad(mi::text, 3, '0')), 'm', 'q' || q,
       1000000 + mi * 60, h * 1000 + mi + q / 10.0
  FROM generate_series(1, 20) h, generate_series(0, 239) mi, generate_series(1, 3) q;
INSERT INTO tsm SELECT * FROM tsh;
SELECT FROM wide.compact('tsm', major => true);

-- the window is shown; the scan enforces it (no Filter)
EXPLAIN (COSTS OFF) SELECT * FROM tsm WHERE ts > 1014000;
EXPLAIN (COSTS OFF) SELECT * FROM tsm WHERE ts BETWEEN 1000600 AND 1001200;
EXPLAIN (COSTS OFF) SELECT * FROM tsm WHERE 1001200 >= ts AND ts = 1001140;
EXPLAIN (COSTS OFF) SELECT * FROM tsm WHERE ts < 5 AND row_key LIKE 'host07#%';
-- not a window: OR, a volatile bound, another column, ANY
EXPLAIN (COSTS OFF) SELECT * FROM tsm WHERE ts < 1000100 OR ts > 1014000;
EXPLAIN (COSTS OFF) SELECT * FROM tsm WHERE ts > 1014000 + (random() * 0)::int;
EXPLAIN (COSTS OFF) SELECT * FROM tsm WHERE ts = ANY (ARRAY[1000000, 1000060]);

-- the last 1% of the time: blocks outside it are skipped
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT count(*) FROM tsm WHERE ts >= 1014340;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT count(*) FROM tsm WHERE ts > 1014340;
-- a window in the past and a key range; a window no block overlaps
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT count(*) FROM tsm WHERE row_key >= 'host05' AND row_key < 'host09' AND ts BETWEEN 1003000 AND 1003600;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT count(*) FROM tsm WHERE ts > 2000000;

-- the same answers as the heap
CREATE FUNCTION ts_check(cond text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	w text;
	h text;
BEGIN
	EXECUTE 'SELECT count(*) || '' '' || coalesce(sum(value::numeric), 0) || '' '' || coalesce(min(row_key), ''-'') FROM tsm WHERE ' || cond INTO w;
	EXECUTE 'SELECT count(*) || '' '' || coalesce(sum(value::numeric), 0) || '' '' || coalesce(min(row_key), ''-'') FROM tsh WHERE ' || cond INTO h;
	IF w IS DISTINCT FROM h THEN
		RETURN format('MISMATCH wide: %s heap: %s', w, h);
	END IF;
	RETURN w;
END
$$;
SELECT c, ts_check(c) FROM unnest(ARRAY[
	'ts >= 1014340', 'ts > 1014340', 'ts = 1007200', 'ts < 1000120', 'ts <= 1000120',
	'ts BETWEEN 1007000 AND 1007100', '1007000 <= ts AND 1007100 >= ts',
	'ts > 1014000 AND row_key LIKE ''host07#%''', 'ts < 1000060 AND ts > 1000060',
	'ts > 2147483647', 'ts > 32767::int2', 'ts >= 1000000::int4', 'ts < 9223372036854775807',
	'ts > 9223372036854775807', 'ts < (-9223372036854775807 - 1)', 'ts > NULL::int8',
	'ts < (SELECT max(ts) - 14000 FROM tsh)']) c;

-- parameters: generic plans, evaluated at each execution
SET plan_cache_mode = force_generic_plan;
PREPARE w(int8, int4) AS SELECT count(*), min(ts), max(ts) FROM tsm WHERE ts >= $1 AND ts < $2;
EXPLAIN (COSTS OFF) EXECUTE w(1000000, 1000060);
EXECUTE w(1000000, 1000060);
EXECUTE w(1014000, 2000000);
EXECUTE w(NULL, 2000000);
DEALLOCATE w;
RESET plan_cache_mode;
-- rescans: a window per outer row
SELECT v.k, v.t, s.n
  FROM (VALUES ('host03#', 1000600), ('host11#', 1014300), ('host19#', 1020000)) v(k, t),
       LATERAL (SELECT count(*) AS n FROM tsm WHERE row_key LIKE v.k || '%' AND ts >= v.t) s
 ORDER BY 1;

-- timestamptz: now() - interval, infinities
CREATE TABLE tsz (row_key text, family text, qualifier text, ts timestamptz, value int8) USING wide;
SELECT wide.create_family('tsz', 'm');
INSERT INTO tsz SELECT 'r' || lpad(i::text, 4, '0'), 'm', 'q', '2030-01-01'::timestamptz + i * interval '1 minute', i
  FROM generate_series(1, 3000) i;
SELECT FROM wide.compact('tsz', major => true);
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT count(*) FROM tsz WHERE ts > '2030-01-03 01:00'::timestamptz;
EXPLAIN (COSTS OFF) SELECT * FROM tsz WHERE ts > now() - interval '10 seconds';
SELECT count(*) FROM tsz WHERE ts > now() + interval '10 years';
SELECT count(*) FROM tsz WHERE ts < 'infinity';
SELECT count(*) FROM tsz WHERE ts > 'infinity';
SELECT count(*) FROM tsz WHERE ts > '-infinity';
SELECT count(*) FROM tsz WHERE ts <= '-infinity';
SELECT count(*) FROM tsz WHERE ts < '294276-12-31 23:59:59+00';
SELECT count(*) FROM tsz WHERE ts >= '294276-12-31 23:59:59+00';
SELECT count(*) FROM tsz WHERE ts BETWEEN '2030-01-01 00:10' AND '2030-01-01 00:20';

-- the merger's needs: a newer version outside the window hides an older
-- one under max_versions, and blocks newer than the window are then read
CREATE TABLE tsv (row_key text, family text, qualifier text, ts int8, value text) USING wide;
SELECT wide.create_family('tsv', 'v', max_versions => 1);
SELECT wide.create_family('tsv', 'p');
INSERT INTO tsv SELECT 'r' || lpad(i::text, 4, '0'), f, 'q', 100, 'old' FROM generate_series(1, 200) i, unnest(ARRAY['p', 'v']) f;
SELECT FROM wide.compact('tsv');
INSERT INTO tsv SELECT 'r' || lpad(i::text, 4, '0'), f, 'q', 200, 'new' FROM generate_series(1, 200, 7) i, unnest(ARRAY['p', 'v']) f;
SELECT FROM wide.compact('tsv');
SELECT family, value, count(*) FROM tsv WHERE ts < 150 GROUP BY 1, 2 ORDER BY 1, 2;
SET wide.enable_customscan = off;
SELECT family, value, count(*) FROM tsv WHERE ts < 150 GROUP BY 1, 2 ORDER BY 1, 2;
RESET wide.enable_customscan;
-- tombstones in a later run: a deleted row stays deleted in any window
SELECT wide.delete_row('tsv', 'r0002');
SELECT wide.delete_family('tsv', 'r0003', 'p');
SELECT wide.delete_cells('tsv', 'r0004', 'p', 'q', 50, 150);
DELETE FROM tsv WHERE row_key = 'r0005' AND ts = 100;
INSERT INTO tsv SELECT 'r' || lpad(i::text, 4, '0'), 'p', 'z', 300, 'newest' FROM generate_series(1, 200) i;
SELECT FROM wide.compact('tsv');
SELECT row_key, family, value FROM tsv WHERE ts < 150 AND row_key < 'r0007' ORDER BY 1, 2;
-- the same from the write area
SELECT wide.delete_row('tsv', 'r0006');
SELECT row_key, family, value FROM tsv WHERE ts < 150 AND row_key < 'r0007' ORDER BY 1, 2;
SELECT count(*) FROM wide.read_rows(NULL::tsv, filter => wide.ts_range(NULL, '1970-01-01 00:00:00.00015+00'))
 WHERE row_key < 'r0007';

-- aggregates: inputs of one cell in several runs share its ts
CREATE TABLE tsa (row_key text, family text, qualifier text, ts int8, value int8) USING wide;
SELECT wide.create_family('tsa', 's', aggregate => 'sum');
INSERT INTO tsa SELECT 'r' || lpad(i::text, 4, '0'), 's', 'q', t, 1 FROM generate_series(1, 300) i, generate_series(1, 3) t;
SELECT FROM wide.compact('tsa');
INSERT INTO tsa SELECT 'r' || lpad(i::text, 4, '0'), 's', 'q', 2, 10 FROM generate_series(1, 300) i;
SELECT FROM wide.compact('tsa');
INSERT INTO tsa SELECT 'r' || lpad(i::text, 4, '0'), 's', 'q', 2, 100 FROM generate_series(1, 300, 3) i;
SELECT ts, sum(value), count(*) FROM tsa WHERE ts = 2 GROUP BY ts;
SELECT ts, sum(value), count(*) FROM tsa WHERE ts >= 3 GROUP BY ts;

-- one row over many blocks, read through a window in its middle
INSERT INTO tsm SELECT 'host99#big', 'm', 'q' || lpad(i::text, 5, '0'), 1000000 + i, i FROM generate_series(1, 3000) i;
INSERT INTO tsh SELECT 'host99#big', 'm', 'q' || lpad(i::text, 5, '0'), 1000000 + i, i FROM generate_series(1, 3000) i;
SELECT FROM wide.compact('tsm', major => true);
SELECT ts_check('row_key = ''host99#big'' AND ts BETWEEN 1001000 AND 1001100');
SELECT ts_check('ts BETWEEN 1001000 AND 1001100');

-- read_rows: a timestamp_range_filter, alone or first in a chain
SELECT count(*), min(ts), max(ts) FROM wide.read_rows(NULL::tsz, filter => wide.ts_range('2030-01-01 01:00', '2030-01-01 01:10'));
SELECT count(*) FROM wide.read_rows(NULL::tsz, prefix => 'r00',
       filter => wide.chain(wide.ts_range('2030-01-01 01:00', '2030-01-01 02:00'), wide.latest(1)));
SELECT count(*) FROM wide.read_rows(NULL::tsz, reversed => true, "limit" => 5,
       filter => wide.interleave(wide.ts_range('2030-01-01 01:00', '2030-01-01 01:02'),
                                 wide.ts_range('2030-01-02 01:00', '2030-01-02 01:02')));
DROP TABLE tsm, tsh, tsz, tsv, tsa;
DROP FUNCTION ts_check(text);
