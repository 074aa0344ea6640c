-- Schema version 2 (docpipe 0.2.0): the storage engine.
--
-- The page tables lose their PRIMARY KEY: the index cost about 70 bytes per row on disk and
-- a third of the load time. Their grain (project_id, window_start, window_end, path) is
-- guaranteed by the loader and checked by `docpipe doctor`. Rows are copied in grain order.

CREATE TABLE page_visitors_v2 (
  project_id VARCHAR NOT NULL, window_start DATE NOT NULL, window_end DATE NOT NULL, path VARCHAR NOT NULL,
  human BIGINT, ai BIGINT, total BIGINT, run_id VARCHAR, flags VARCHAR
);
INSERT INTO page_visitors_v2 (project_id, window_start, window_end, path, human, ai, total, run_id, flags)
SELECT project_id, window_start, window_end, path, human, ai, total, run_id, flags
FROM page_visitors ORDER BY project_id, window_start, window_end, path;
DROP TABLE page_visitors;
ALTER TABLE page_visitors_v2 RENAME TO page_visitors;

CREATE TABLE page_views_v2 (
  project_id VARCHAR NOT NULL, window_start DATE NOT NULL, window_end DATE NOT NULL, path VARCHAR NOT NULL,
  human BIGINT, ai BIGINT, total BIGINT, run_id VARCHAR, flags VARCHAR
);
INSERT INTO page_views_v2 (project_id, window_start, window_end, path, human, ai, total, run_id, flags)
SELECT project_id, window_start, window_end, path, human, ai, total, run_id, flags
FROM page_views ORDER BY project_id, window_start, window_end, path;
DROP TABLE page_views;
ALTER TABLE page_views_v2 RENAME TO page_views;

-- Which process ran a run, so `docpipe doctor` can tell a live run from one a crash left
-- `running`.
ALTER TABLE runs ADD COLUMN pid INTEGER;
ALTER TABLE runs ADD COLUMN host VARCHAR;

-- Requests are journalled in the spool when they are made and moved here with the next
-- write; the id makes that move idempotent. Rows from 0.1.0 have none.
ALTER TABLE request_log ADD COLUMN request_id VARCHAR;

-- Small facts about the database itself (e.g. the checksum of the views last applied).
CREATE TABLE docpipe_meta (key VARCHAR PRIMARY KEY, value VARCHAR);
