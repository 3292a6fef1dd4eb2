--
-- policy_notice: a statement that writes cells its family's policy has
-- already collected (a timestamp older than max_age) says so, once, with
-- the number of those cells: COPY, INSERT ... SELECT, multi-row INSERT and
-- the data API.  Versions beyond max_versions are not counted (writing
-- newer versions over older ones is what max_versions is for).
--
CREATE TABLE pn (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
SELECT wide.create_family('pn', 'm', max_age => '7 days');
SELECT wide.create_family('pn', 'keep');
SELECT wide.create_family('pn', 'v', max_versions => 1);
SELECT wide.create_family('pn', 'day', max_age => '36 hours');
SELECT wide.create_family('pn', 'both', max_versions => 1, max_age => '1 day', gc => 'intersection');
CREATE TABLE pn_src (row_key text, family text, qualifier text, ts timestamptz, value float8);

-- COPY of 2,000 readings 8 days old: all of them
COPY (SELECT 'r' || i, 'm', 'q', now() - interval '8 days', i FROM generate_series(1, 2000) i)
  TO '/tmp/wide_policy_notice.csv' (FORMAT csv);
COPY pn FROM '/tmp/wide_policy_notice.csv' (FORMAT csv);
SELECT count(*) FROM pn;
-- a partial case: 300 of 1,000 are expired
COPY (SELECT 'p' || i, 'm', 'q', now() - CASE WHEN i <= 300 THEN interval '8 days' ELSE interval '1 day' END, i
        FROM generate_series(1, 1000) i)
  TO '/tmp/wide_policy_notice.csv' (FORMAT csv);
COPY pn FROM '/tmp/wide_policy_notice.csv' (FORMAT csv);
SELECT count(*) FROM pn;
-- nothing expired: no notice (old cells of a family without max_age, many
-- versions of a max_versions family, an old version that an intersection
-- keeps as the newest)
COPY (SELECT 'z' || i, 'keep', 'q', now() - interval '800 days', i FROM generate_series(1, 500) i
      UNION ALL SELECT 'z1', 'v', 'q', now() - i * interval '1 second', i FROM generate_series(1, 5) i
      UNION ALL SELECT 'z2', 'both', 'q', now() - interval '5 days', 1)
  TO '/tmp/wide_policy_notice.csv' (FORMAT csv);
COPY pn FROM '/tmp/wide_policy_notice.csv' (FORMAT csv);
SELECT family, count(*) FROM pn GROUP BY 1 ORDER BY 1;

-- INSERT ... SELECT, partial, one notice for the statement
INSERT INTO pn_src SELECT 'i' || i, 'm', 'q', now() - CASE WHEN i % 4 = 0 THEN interval '30 days' ELSE interval '1 hour' END, i
  FROM generate_series(1, 10000) i;
INSERT INTO pn SELECT * FROM pn_src;
SELECT count(*) FROM pn WHERE row_key LIKE 'i%';
-- multi-row INSERT; an INSERT of fresh cells says nothing
INSERT INTO pn VALUES ('x1', 'm', 'q', now() - interval '8 days', 1),
                      ('x2', 'm', 'q', now() - interval '9 days', 2),
                      ('x3', 'm', 'q', now(), 3);
INSERT INTO pn VALUES ('x4', 'm', 'q', now(), 4);
-- cells of two families
INSERT INTO pn VALUES ('y1', 'day', 'q', now() - interval '2 days', 1),
                      ('y2', 'm', 'q', now() - interval '8 days', 2),
                      ('y3', 'day', 'q', now() - interval '3 days', 3);
-- the data API: set_cell over a query, mutate_rows (one notice each)
SELECT wide.set_cell('pn', 'd' || i, 'm', 'q', i::float8, now() - interval '10 days')
  FROM generate_series(1, 3) i;
SELECT wide.mutate_rows('pn', jsonb_build_array(jsonb_build_object('row_key', 'd9', 'mutations',
  jsonb_build_array(jsonb_build_object('set_cell', jsonb_build_object('family_name', 'm', 'column_qualifier', 'q',
    'timestamp_micros', (extract(epoch from now() - interval '10 days') * 1000000)::int8, 'value', '1'))))));
-- several statements in one function: one notice for the calling statement
DO $$
BEGIN
  INSERT INTO pn VALUES ('f1', 'm', 'q', now() - interval '8 days', 1);
  INSERT INTO pn VALUES ('f2', 'm', 'q', now() - interval '8 days', 1);
END $$;
-- a rolled back subtransaction's cells are not counted, the others are
DO $$
BEGIN
  INSERT INTO pn VALUES ('s1', 'm', 'q', now() - interval '8 days', 1);
  BEGIN
    INSERT INTO pn VALUES ('s2', 'm', 'q', now() - interval '8 days', 1),
                          ('s3', 'm', 'q', now() - interval '8 days', 1);
    RAISE EXCEPTION 'roll back';
  EXCEPTION WHEN raise_exception THEN NULL;
  END;
  BEGIN
    INSERT INTO pn VALUES ('s4', 'm', 'q', now() - interval '8 days', 1);
  END;
END $$;
-- a statement that fails counts nothing: the next one says nothing
COPY pn FROM STDIN (FORMAT csv);
e1,m,q,2001-01-01 00:00:00+00,1
e2,nope,q,2001-01-01 00:00:00+00,1
\.
INSERT INTO pn VALUES ('x5', 'm', 'q', now(), 5);
SELECT count(*) FROM pn WHERE family = 'm';
DROP TABLE pn, pn_src;
