--
-- conditional: check_and_mutate_row, read_modify_write_row
--
\set SHOW_CONTEXT never
CREATE TABLE jobs (row_key text, family text, qualifier text, ts int8, value text) USING wide;
SELECT wide.create_family('jobs', 'st');
CREATE TABLE c (row_key text, family text, qualifier text, ts timestamptz, value int8) USING wide;
SELECT wide.create_family('c', 'cf');
SELECT wide.create_family('c', 'agg', aggregate => 'sum');
CREATE TABLE b (row_key bytea, family text, qualifier bytea, ts int8, value bytea) USING wide;
SELECT wide.create_family('b', 'cf');

-- no predicate: matches when the row has any cell
SELECT wide.check_and_mutate_row('jobs', 'job#1',
  on_no_match => '[{"set_cell": {"family_name": "st", "column_qualifier": "state", "timestamp_micros": 1, "value": "queued"}}]');
SELECT wide.check_and_mutate_row('jobs', 'job#1',
  on_no_match => '[{"set_cell": {"family_name": "st", "column_qualifier": "state", "timestamp_micros": 1, "value": "twice"}}]');
SELECT row_key, qualifier, value FROM jobs;
-- a predicate filter: claim a queued job
SELECT wide.check_and_mutate_row('jobs', 'job#1',
  predicate => '{"chain": [{"column_qualifier_regex_filter": "state"}, {"value_regex_filter": "queued"}]}',
  on_match => '[{"set_cell": {"family_name": "st", "column_qualifier": "state", "timestamp_micros": 1, "value": "running"}},
                {"set_cell": {"family_name": "st", "column_qualifier": "owner", "timestamp_micros": 1, "value": "worker-7"}}]',
  on_no_match => '[{"set_cell": {"family_name": "st", "column_qualifier": "error", "timestamp_micros": 1, "value": "not queued"}}]');
SELECT wide.check_and_mutate_row('jobs', 'job#1',
  predicate => '{"chain": [{"column_qualifier_regex_filter": "state"}, {"value_regex_filter": "queued"}]}',
  on_match => '[{"delete_from_row": {}}]',
  on_no_match => '[{"set_cell": {"family_name": "st", "column_qualifier": "error", "timestamp_micros": 1, "value": "not queued"}}]');
SELECT row_key, qualifier, value FROM jobs;
-- no mutation for the branch taken: nothing written, the answer still told
SELECT wide.check_and_mutate_row('jobs', 'job#2', predicate => '{"pass_all_filter": true}');
SELECT count(*) FROM jobs WHERE row_key = 'job#2';
-- it sees its own transaction's writes; a rollback undoes its mutations
BEGIN;
INSERT INTO jobs VALUES ('job#3', 'st', 'state', 1, 'queued');
SELECT wide.check_and_mutate_row('jobs', 'job#3', on_match => '[{"delete_from_row": {}}]');
SELECT count(*) FROM jobs WHERE row_key = 'job#3';
ROLLBACK;
INSERT INTO jobs VALUES ('job#3', 'st', 'state', 1, 'queued');
BEGIN;
SELECT wide.check_and_mutate_row('jobs', 'job#3', on_match => '[{"delete_from_row": {}}]');
SELECT count(*) FROM jobs WHERE row_key = 'job#3';
ROLLBACK;
SELECT count(*) FROM jobs WHERE row_key = 'job#3';
-- bad input: checked before anything is read or written
SELECT wide.check_and_mutate_row('jobs', 'job#1', predicate => '{"nope": 1}');
SELECT wide.check_and_mutate_row('jobs', 'job#1', on_match => '{"set_cell": {}}');
SELECT wide.check_and_mutate_row('jobs', 'job#1', on_no_match => '[{"set_cell": {"family_name": "zz", "column_qualifier": "a", "value": "x"}}]');
SELECT wide.check_and_mutate_row('c', 'job#1', on_match => '[{"set_cell": {"family_name": "agg", "column_qualifier": "a", "timestamp_micros": 0, "value": 1}}]');
SELECT wide.check_and_mutate_row('jobs', '', on_match => '[]');
SELECT row_key, qualifier, value FROM jobs;

-- read_modify_write_row: increment (missing cell = 0), in int8 and bytea
-- value columns; the new cell is returned
SELECT row_key, qualifier, value FROM wide.read_modify_write_row(NULL::c, 'page', 'cf', 'views', increment => 5);
SELECT value FROM wide.read_modify_write_row(NULL::c, 'page', 'cf', 'views', increment => -2);
SELECT value FROM wide.read_modify_write_row(NULL::b, 'page', 'cf', 'views', increment => 1);
SELECT value FROM wide.read_modify_write_row(NULL::b, 'page', 'cf', 'views', increment => 255);
-- the increment wraps around, as Bigtable's
SELECT value FROM wide.read_modify_write_row(NULL::c, 'wrap', 'cf', 'n', increment => 9223372036854775807);
SELECT value FROM wide.read_modify_write_row(NULL::c, 'wrap', 'cf', 'n', increment => 1);
-- append
SELECT value FROM wide.read_modify_write_row(NULL::b, 'log', 'cf', 'events', append => '\x01'::bytea);
SELECT value FROM wide.read_modify_write_row(NULL::b, 'log', 'cf', 'events', append => '\x0203'::bytea);
SELECT value FROM wide.read_modify_write_row(NULL::jobs, 'log', 'st', 'events', append => 'start;');
SELECT value FROM wide.read_modify_write_row(NULL::jobs, 'log', 'st', 'events', append => 'stop;');
-- each call adds a version (newest first); the newest is the result
SELECT count(*), max(value) FILTER (WHERE ts = (SELECT max(ts) FROM c WHERE row_key = 'page')) AS newest
  FROM c WHERE row_key = 'page';
-- a cell with a timestamp in the future: the new value is written at that
-- ts, so it replaces it (and stays the newest version)
INSERT INTO c VALUES ('future', 'cf', 'n', '2100-01-01', 10);
SELECT ts, value FROM wide.read_modify_write_row(NULL::c, 'future', 'cf', 'n', increment => 1);
SELECT ts, value FROM c WHERE row_key = 'future';
-- errors
SELECT * FROM wide.read_modify_write_row(NULL::b, 'log', 'cf', 'events', increment => 1);
SELECT * FROM wide.read_modify_write_row(NULL::c, 'page', 'cf', 'views', append => '\x01');
SELECT * FROM wide.read_modify_write_row(NULL::c, 'page', 'cf', 'views');
SELECT * FROM wide.read_modify_write_row(NULL::c, 'page', 'cf', 'views', append => '\x01', increment => 1);
SELECT * FROM wide.read_modify_write_row(NULL::c, 'page', 'agg', 'views', increment => 1);
SELECT * FROM wide.read_modify_write_row(NULL::jobs, 'page', 'st', 'views', increment => 1);
SELECT * FROM wide.read_modify_write_row(NULL::c, 'page', 'nope', 'views', increment => 1);
SELECT * FROM wide.read_modify_write_row(NULL::pg_class, 'page', 'cf', 'views', increment => 1);
SELECT count(*) FROM b WHERE row_key = 'log';
DROP TABLE jobs, c, b;
