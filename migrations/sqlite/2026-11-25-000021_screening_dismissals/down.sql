DELETE FROM sqlite_stat1 WHERE tbl = 'screening_dismissals';
DROP TABLE screening_dismissals;
