-- Schema version 12: a thread's fetched_at is when its body was received (it was when it was
-- loaded, which for a body left in the spool could be days later), and a transcript fetched
-- before its conversation's window ended is fetched once more after it (it may have grown).
COMMENT ON COLUMN assistant_threads.fetched_at IS 'When its body was received (NULL: before this table, unknown). A thread fetched before its conversation''s window ended is fetched again after it.';
