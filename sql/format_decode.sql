--
-- format_decode: the wide_internal.format_* decoders (src/api/formatdecode.c)
-- that the TAP fuzzers use to find what to damage.  On a table's file (read
-- with pg_read_binary_file) they must agree with what the engine says of
-- the table (wide.runs, wide.stats); on truncated, random and damaged
-- bytes they must end with a clear error (XX001, or 22023 for a wrong
-- argument), never a crash or a read outside their input.
--
\set SHOW_CONTEXT never
SET client_min_messages = warning;
DROP ROLE IF EXISTS regress_fd_user;
CREATE ROLE regress_fd_user;
RESET client_min_messages;
CREATE TABLE fd (row_key text, family text, qualifier text, ts int8, value int8) USING wide;
SELECT wide.create_family('fd', 'm');
SET wide.block_size = 1024;
INSERT INTO fd SELECT 'r' || lpad(i::text, 5, '0'), 'm', 'q' || (i % 7), i, i * 3
  FROM generate_series(1, 20000) i;
SELECT FROM wide.compact('fd', true);
INSERT INTO fd VALUES ('zz', 'm', 'q', 1, 1);
CHECKPOINT;
CREATE TEMP TABLE img AS SELECT pg_read_binary_file(pg_relation_filepath('fd')) AS b;

-- pages: the metapage first, segment headers and stream pages, the
-- write-area page of the last INSERT
SELECT type, count(*) > 0 AS present FROM img, wide_internal.format_pages(b)
 WHERE type IN ('meta', 'segheader', 'segment', 'write') GROUP BY 1 ORDER BY 1;
SELECT type FROM img, wide_internal.format_pages(b) WHERE blkno = 0;

-- the metapage's fields: its magic ("WIDE"), and as many runs as wide.runs
SELECT f.value = x'57494445'::int AS magic, f.off, f.size
  FROM img, wide_internal.format_page_fields(substring(b from 1 for 8192)) f
 WHERE f.field = 'magic';
SELECT f.value = (SELECT count(*) FROM wide.runs('fd')) AS nruns
  FROM img, wide_internal.format_page_fields(substring(b from 1 for 8192)) f
 WHERE f.field = 'nruns';
-- the run's root and segment id where the metapage keeps them
SELECT r.value = s.root AS root, i.value = s.segid AS segid
  FROM img, wide_internal.format_segments(b) s,
       wide_internal.format_page_fields(substring(b from 1 for 8192)) r,
       wide_internal.format_page_fields(substring(b from 1 for 8192)) i
 WHERE s.live AND r.field = 'run 0 root' AND i.field = 'run 0 segid';

-- the write-area pages of the current generation: line pointers, and the
-- record of ('zz', 'm', 'q', 1, 1): a PUT (kind 4) of an 8-byte value
SELECT min(r.off) FILTER (WHERE r.field = 'lp') AS first_lp,
       bool_or(r.field = 'kind' AND r.value = 4) AS put,
       bool_or(r.field = 'keylen' AND r.value = 2) AS keylen,
       bool_or(r.field = 'vallen' AND r.value = 8) AS vallen,
       bool_and(r.off + r.size <= 8192) AS in_page
  FROM img, wide_internal.format_pages(b) p,
       wide_internal.format_records(substring(b from p.blkno::int * 8192 + 1 for 8192)) r
 WHERE p.type = 'write'
   AND p.owner = (SELECT value FROM wide_internal.format_page_fields(substring(b from 1 for 8192))
                   WHERE field = 'generation');

-- the live segments are the runs; each decodes: its header page's fields,
-- its stream, its stored blocks (checksums as stored), its cells
SELECT count(*) FILTER (WHERE live) = (SELECT count(*) FROM wide.runs('fd')) AS live_are_runs,
       (SELECT array_agg(segment ORDER BY segment) FROM wide.runs('fd'))
         = array_agg(segid ORDER BY segid) FILTER (WHERE live) AS same_ids
  FROM img, wide_internal.format_segments(b);
CREATE TEMP TABLE seg AS
  SELECT s.* FROM img, wide_internal.format_segments(b) r,
         wide_internal.format_segment(b, r.root) s WHERE r.live;
SELECT length(stream) = stream_len AS stream, cardinality(stream_pages) > 1 AS pages,
       page_data_off, page_capacity, typlen, nblobs,
       ncells = (SELECT sum(cells) FROM wide.runs('fd')) AS cells
  FROM seg;
SELECT f.field, f.value = CASE f.field WHEN 'type' THEN x'5705'::int ELSE s.segid END AS right
  FROM img, seg s, wide_internal.format_page_fields(substring(b from s.header_pages[1]::int * 8192 + 1 for 8192)) f
 WHERE f.field IN ('segid', 'type') ORDER BY 1;
CREATE TEMP TABLE blk AS
  SELECT k.*, f.type AS ftype, f.stored_crc, f.crc, f.body
    FROM img, wide_internal.format_segments(b) r,
         wide_internal.format_stored_blocks(b, r.root) k,
         wide_internal.format_frame(k.stored) f WHERE r.live;
SELECT kind, count(*) > 0 AS present, bool_and(stored_crc = crc) AS crc_ok,
       bool_and(type = ftype) AS same_type,
       bool_and(wide_internal.format_crc32c(substring(stored from 1 for len::int - 4)) = crc) AS crc32c
  FROM blk GROUP BY 1 ORDER BY 1;
-- each stored block is where the stream says
SELECT bool_and(substring(s.stream from k.off::int + 1 for k.len::int) = k.stored) AS in_stream
  FROM blk k, seg s;
-- the root's entries name the index blocks, theirs the data blocks, whose
-- cells add up to the segment's
SELECT (SELECT count(*) FROM blk WHERE kind = 'index') = count(*) AS root_entries
  FROM blk, wide_internal.format_index(body, true) e WHERE kind = 'root';
SELECT sum(e.ncells) = (SELECT ncells FROM seg) AS cells,
       count(*) = (SELECT count(*) FROM blk WHERE kind = 'data') AS data_entries,
       bool_or(e.last_row = convert_to('r20000', 'UTF8')) AS last_row
  FROM blk, wide_internal.format_index(body, false) e WHERE kind = 'index';

-- varints (LEB128) and a frame forged with format_compress and
-- format_crc32c (stored little-endian), which decodes to what was compressed
-- the error of a query on an image and a block
CREATE FUNCTION fd_error(q text, arg bytea, blk bigint) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE q USING arg, blk;
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ': ' || SQLERRM;
END
$$;
CREATE FUNCTION fd_le32(v bigint) RETURNS bytea LANGUAGE sql AS $$
  SELECT decode(substring(h from 7 for 2) || substring(h from 5 for 2) ||
                substring(h from 3 for 2) || substring(h from 1 for 2), 'hex')
    FROM lpad(to_hex(v), 8, '0') h
$$;
SELECT value, next FROM wide_internal.format_varints('\x007f8001ffffffffffffffffff01ac02', 0, 5);
SELECT f.type, f.stored_crc = f.crc AS crc_ok, convert_from(f.body, 'UTF8') AS body
  FROM (SELECT wide_internal.format_compress(convert_to(repeat('wide ', 40), 'UTF8'), 19) || '\x01'::bytea AS p) z,
       wide_internal.format_frame(z.p || fd_le32(wide_internal.format_crc32c(z.p))) f;
SELECT wide_internal.format_crc32c('\x'::bytea), wide_internal.format_crc32c(convert_to('123456789', 'UTF8'));
-- the functions that return no set are not STRICT: a NULL argument, NULL
SELECT wide_internal.format_crc32c(NULL) IS NULL AS crc, wide_internal.format_compress(NULL, 1) IS NULL AS compress,
       wide_internal.format_compress('\x00', NULL) IS NULL AS level,
       wide_internal.format_encode_varints(NULL) IS NULL AS varints,
       (wide_internal.format_frame(NULL)).type IS NULL AS frame,
       (SELECT (wide_internal.format_segment(b, NULL)).segid IS NULL FROM img) AS segment;

-- clear errors on input they cannot decode
SELECT * FROM wide_internal.format_pages('\x00');
SELECT * FROM wide_internal.format_page_fields('\x0001');
SELECT * FROM wide_internal.format_frame('\x0102');
SELECT * FROM wide_internal.format_frame('\x000000000007aabbccdd');
SELECT * FROM wide_internal.format_frame('\x28b52ffda0ffff3f0019000000000001aabbccdd');
SELECT * FROM wide_internal.format_index('\x05', true);
SELECT * FROM wide_internal.format_varints('\x8080', 0, 1);
SELECT * FROM wide_internal.format_varints('\x00', 2, 1);
SELECT * FROM wide_internal.format_compress('\x00', 100);
SELECT segid FROM img, wide_internal.format_segment(b, 0);
SELECT segid FROM img, wide_internal.format_segment(b, 1 << 30);
-- a block that is no header page, and a header chain that loops (its
-- page's next link, where format_page_fields says it is, to itself)
SELECT segid FROM img, wide_internal.format_segment(b, (SELECT min(blkno) FROM wide_internal.format_pages(b) WHERE type = 'segment'));
\set VERBOSITY terse
SELECT regexp_replace(fd_error('SELECT segid FROM wide_internal.format_segment($1, $2)',
                               overlay(b placing fd_le32(s.header_pages[1])
                                       from s.header_pages[1]::int * 8192 + f.off + 1), s.header_pages[1]),
                      '\d+', 'N', 'g') AS error
  FROM img, seg s,
  wide_internal.format_page_fields(substring(b from s.header_pages[1]::int * 8192 + 1 for 8192)) f
 WHERE f.field = 'next';
\set VERBOSITY default

-- random bytes, truncated and damaged images: every call returns or fails
-- with XX001 / 22023 (any other error fails the block; a crash fails the
-- test)
CREATE FUNCTION fd_try(q text, arg bytea) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE q USING arg;
  RETURN 'ok';
EXCEPTION WHEN data_corrupted OR invalid_parameter_value THEN
  RETURN 'error ' || SQLSTATE;
END
$$;
CREATE TEMP TABLE fd_queries (q text);
INSERT INTO fd_queries VALUES
  ('SELECT count(*) FROM wide_internal.format_pages($1)'),
  ('SELECT count(*) FROM wide_internal.format_page_fields($1)'),
  ('SELECT count(*) FROM wide_internal.format_records($1)'),
  ('SELECT count(*) FROM wide_internal.format_segments($1)'),
  ('SELECT count(*) FROM wide_internal.format_segments($1) r, wide_internal.format_segment($1, r.root)'),
  ('SELECT count(*) FROM wide_internal.format_segments($1) r, wide_internal.format_stored_blocks($1, r.root)'),
  ('SELECT count(*) FROM wide_internal.format_frame($1)'),
  ('SELECT count(*) FROM wide_internal.format_index($1, true)'),
  ('SELECT count(*) FROM wide_internal.format_index($1, false)'),
  ('SELECT count(*) FROM wide_internal.format_varints($1, 0, 4)'),
  ('SELECT wide_internal.format_crc32c($1)');
SELECT setseed(0.25);
CREATE TEMP TABLE fd_inputs AS
  -- random bytes of any length, a page of them, each stored block truncated
  SELECT 'random' AS what,
         (SELECT string_agg(lpad(to_hex((random() * 255)::int), 2, '0'), '') FROM generate_series(0, n)) AS hex
    FROM (SELECT (random() * 300)::int + i * 0 AS n FROM generate_series(1, 40) i) r
  UNION ALL
  SELECT 'page', (SELECT string_agg(lpad(to_hex((random() * 255)::int), 2, '0'), '') FROM generate_series(1, 8192 + i * 0))
    FROM generate_series(1, 2) i
  UNION ALL
  SELECT 'truncated', encode(substring(stored from 1 for (random() * len)::int), 'hex') FROM blk
  UNION ALL
  SELECT 'body', encode(substring(body from 1 for (random() * length(body))::int), 'hex') FROM blk;
-- the image with a random byte of a header or stream page replaced, and
-- with each 4-byte field of the header set to an extreme value
CREATE TEMP TABLE fd_images AS
  SELECT i, overlay(b placing decode(lpad(to_hex((random() * 255)::int), 2, '0'), 'hex')
                    from (p.blkno * 8192 + 25 + (random() * 8100)::int)::int for 1) AS img
    FROM img, generate_series(1, 60) i,
         LATERAL (SELECT blkno FROM wide_internal.format_pages(b)
                   WHERE type IN ('segheader', 'segment') AND i > 0
                   ORDER BY random() LIMIT 1) p
  UNION ALL
  SELECT 100 + f.off, overlay(b placing decode(v, 'hex') from (s.header_pages[1] * 8192 + f.off + 1)::int)
    FROM img, seg s,
         wide_internal.format_page_fields(substring(b from s.header_pages[1]::int * 8192 + 1 for 8192)) f,
         (VALUES ('ffffffff'), ('00000000'), ('7fffffff'), ('01000000')) v(v)
   WHERE f.size = 4;
SELECT what, count(*) > 0 AS calls, count(*) FILTER (WHERE o = 'ok') > 0 AS some_ok,
       count(*) FILTER (WHERE o = 'error XX001') > 0 AS some_xx001
  FROM (SELECT i.what, fd_try(q.q, decode(i.hex, 'hex')) AS o
          FROM fd_inputs i, fd_queries q) x
 GROUP BY 1 ORDER BY 1;
SELECT count(*) > 60 AS images, bool_and(o ~ '^(ok|error XX001)$') AS clear,
       count(*) FILTER (WHERE o LIKE 'error%') > 0 AS some_refused
  FROM (SELECT fd_try(q, img) AS o FROM fd_images,
          unnest(ARRAY['SELECT count(*) FROM wide_internal.format_segments($1) r, wide_internal.format_stored_blocks($1, r.root)',
                       'SELECT count(*) FROM wide_internal.format_segments($1) r, wide_internal.format_segment($1, r.root)']) q) x;

-- internal: PUBLIC may not execute them (see privileges_catalog)
SET ROLE regress_fd_user;
SELECT * FROM wide_internal.format_crc32c('\x00');
SELECT * FROM wide_internal.format_pages('\x00');
-- ... not with a NULL argument either (a STRICT function would be folded to NULL)
SELECT wide_internal.format_crc32c(NULL);
SELECT wide_internal.format_compress('\x00', NULL);
RESET ROLE;

DROP FUNCTION fd_try, fd_le32, fd_error;
DROP TABLE fd;
DROP ROLE regress_fd_user;
