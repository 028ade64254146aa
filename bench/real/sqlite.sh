#!/bin/sh
# Prints the SQL of the sqlite3 workload for ROWS rows: build a table, then two
# indexes with the multi-threaded sorter (PRAGMA threads=2, small cache so the
# sort spills and runs on worker threads), then a scan.
rows=${1:-200000}
cat <<SQL
PRAGMA threads=2;
PRAGMA cache_size=-1000;
CREATE TABLE t(a INTEGER, b TEXT);
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x<$rows)
  INSERT INTO t SELECT (x*2654435761)%1000003, printf('%08x-%d', (x*2246822519)%4294967291, x) FROM c;
CREATE INDEX i1 ON t(b);
CREATE INDEX i2 ON t(a, b);
SELECT count(*), sum(a) FROM t WHERE b >= '8';
SQL
