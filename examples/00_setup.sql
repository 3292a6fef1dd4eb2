-- The demo's checks: every example ends by comparing its answers with the
-- values its generated data must give, so a wrong answer stops the run
-- (psql -v ON_ERROR_STOP=1) instead of scrolling by.  test/t/205_demo.pl
-- runs these files the same way.
CREATE EXTENSION IF NOT EXISTS wide;
CREATE SCHEMA IF NOT EXISTS demo;

-- raise unless got = want; otherwise a line "ok: what = got"
CREATE OR REPLACE FUNCTION demo.expect(what text, got anycompatible, want anycompatible)
RETURNS text LANGUAGE plpgsql
AS $$
BEGIN
  IF got IS DISTINCT FROM want THEN
    RAISE EXCEPTION 'demo check failed: % is %, expected %', what, got, want;
  END IF;
  RETURN format('ok: %s = %s', what, got);
END
$$;

-- raise unless got is within [lo, hi] (estimates: HyperLogLog counts)
CREATE OR REPLACE FUNCTION demo.expect_between(what text, got numeric, lo numeric, hi numeric)
RETURNS text LANGUAGE plpgsql
AS $$
BEGIN
  IF got IS NULL OR got < lo OR got > hi THEN
    RAISE EXCEPTION 'demo check failed: % is %, expected % to %', what, got, lo, hi;
  END IF;
  RETURN format('ok: %s = %s (expected %s to %s)', what, got, lo, hi);
END
$$;
