PRAGMA threads=2;
PRAGMA cache_size=-2000;
CREATE TABLE t(a INTEGER, b TEXT, c REAL);
WITH RECURSIVE cnt(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM cnt WHERE x<200000)
INSERT INTO t SELECT (x*7919)%200003, printf('row-%08d-%s', (x*104729)%1000003, hex(x*x)), x*0.5 FROM cnt;
CREATE INDEX ti ON t(b, a);
SELECT count(*), sum(a), min(b), max(b) FROM t;
SELECT b FROM t ORDER BY b DESC LIMIT 3 OFFSET 1000;
SELECT a%10, count(*), total(c) FROM t GROUP BY a%10 ORDER BY 1;
PRAGMA integrity_check;
