-- Tests that need two-phase commit (max_prepared_transactions > 0). On a
-- server without it (PostgreSQL's default) they are skipped with a notice,
-- so that `make installcheck` passes against any server; expected output:
-- prepared.out when they run, prepared_1.out when skipped.  Runs right after
-- privileges.sql, whose roles, table pt, priv_try() and priv_calls it uses
-- and then drops.
SELECT current_setting('max_prepared_transactions')::int > 0 AS can_prepare \gset
\if :can_prepare

CREATE TABLE tp (row_key text, family text, qualifier text, ts timestamptz, value int) USING wide;
SELECT wide.create_family('tp', 'f');

-- two-phase commit: invisible until COMMIT PREPARED, gone on ROLLBACK
BEGIN;
INSERT INTO tp VALUES ('2pc', 'f', 'q', '2030-01-01', 20);
PREPARE TRANSACTION 'wide_2pc_1';
SELECT count(*) FROM tp WHERE row_key = '2pc';
COMMIT PREPARED 'wide_2pc_1';
SELECT count(*) FROM tp WHERE row_key = '2pc';
BEGIN;
INSERT INTO tp VALUES ('2pc-abort', 'f', 'q', '2030-01-01', 21);
PREPARE TRANSACTION 'wide_2pc_2';
ROLLBACK PREPARED 'wide_2pc_2';
SELECT count(*) FROM tp WHERE row_key = '2pc-abort';

DROP TABLE tp;

-- A role without the privilege cannot queue a lock: while another
-- transaction holds an ACCESS EXCLUSIVE lock, the functions fail at once
-- with 42501 (before: 55P03 after waiting lock_timeout), and only calls the
-- role may make wait (55P03).  Not shown (n/a): plain SQL, which takes its
-- ACCESS SHARE lock before it checks privileges, as PostgreSQL always does,
-- and the functions that name the table by its row type, whose row
-- descriptor PostgreSQL loads under an ACCESS SHARE lock before the call.
BEGIN;
LOCK TABLE pt IN ACCESS EXCLUSIVE MODE;
PREPARE TRANSACTION 'regress_wide_lock';
SET lock_timeout = '50ms';
SELECT label,
       CASE WHEN rowtype THEN 'n/a' ELSE priv_try('regress_wide_none', stmt) END AS "none, while locked",
       CASE WHEN rowtype THEN 'n/a' ELSE priv_try('regress_wide_select', stmt) END AS "sel, while locked"
FROM priv_calls ORDER BY n;
RESET lock_timeout;
COMMIT PREPARED 'regress_wide_lock';

\else
\echo 'skipped: two-phase commit tests need max_prepared_transactions > 0 on this server'
\endif

DROP TABLE pt;
DROP TABLE priv_calls;
DROP FUNCTION priv_try(text, text);
DROP ROLE regress_wide_none, regress_wide_select, regress_wide_insert,
  regress_wide_delete, regress_wide_sid, regress_wide_owner, regress_wide_cols,
  regress_wide_col1, regress_wide_all_data;
