DELETE FROM sqlite_stat1 WHERE tbl IN
    ('verification_sessions', 'verification_callbacks', 'truuth_callback_secrets');
DROP TABLE truuth_callback_secrets;
DROP TABLE verification_callbacks;
DROP TABLE verification_sessions;
