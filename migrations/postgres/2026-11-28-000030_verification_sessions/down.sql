DROP TABLE truuth_callback_secrets;
DROP TABLE verification_callbacks;
DROP TABLE verification_sessions;
