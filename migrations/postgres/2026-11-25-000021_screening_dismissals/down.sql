DROP TABLE screening_dismissals;
