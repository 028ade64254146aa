/* SQLite as a library, as a threaded program uses it: THREADS threads, each
 * with its own in-memory database (its own connection), insert ROWS rows in
 * total (ROWS / THREADS each, in transactions of 1,000), build an index and
 * look every row up through it. Debian's libsqlite3 is built serialized
 * (SQLITE_THREADSAFE=1): each connection has a recursive mutex, and with
 * memory statistics on (the default) every allocation takes SQLite's one
 * global memory mutex inside it, so the threads contend for that one.
 *   sqlite_threads THREADS ROWS [memstatus=0]
 * memstatus=0: sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0) before the first
 * use (no global mutex per allocation), as a diagnostic of that mutex's share.
 * Prints the checksum of the lookups (the same for every run and tool). */
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long rows_per_thread;

static void die(sqlite3 *db, const char *what)
{
    fprintf(stderr, "sqlite_threads: %s: %s\n", what, db ? sqlite3_errmsg(db) : "?");
    exit(1);
}

static void exec(sqlite3 *db, const char *sql)
{
    if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
        die(db, sql);
}

/* The key of row i of thread t: scattered, so the index build sorts. */
static void key(char *buf, size_t len, long t, long i)
{
    unsigned long h = (unsigned long)(i + 1) * 2654435761ul ^ (unsigned long)t * 40503ul;
    snprintf(buf, len, "%08lx-%ld", h & 0xfffffffful, i);
}

static void *worker(void *arg)
{
    long t = (long)arg;
    sqlite3 *db;
    if (sqlite3_open(":memory:", &db) != SQLITE_OK)
        die(db, "open");
    exec(db, "CREATE TABLE t(a INTEGER, b TEXT)");
    sqlite3_stmt *ins, *get;
    if (sqlite3_prepare_v2(db, "INSERT INTO t VALUES(?, ?)", -1, &ins, NULL) != SQLITE_OK)
        die(db, "prepare insert");
    char k[32];
    for (long i = 0; i < rows_per_thread; i++) {
        if (i % 1000 == 0)
            exec(db, "BEGIN");
        key(k, sizeof k, t, i);
        sqlite3_bind_int64(ins, 1, i * 7 + t);
        sqlite3_bind_text(ins, 2, k, -1, SQLITE_TRANSIENT);
        if (sqlite3_step(ins) != SQLITE_DONE)
            die(db, "insert");
        sqlite3_reset(ins);
        if (i % 1000 == 999 || i == rows_per_thread - 1)
            exec(db, "COMMIT");
    }
    sqlite3_finalize(ins);
    exec(db, "CREATE INDEX tb ON t(b)");
    if (sqlite3_prepare_v2(db, "SELECT a FROM t WHERE b = ?", -1, &get, NULL) != SQLITE_OK)
        die(db, "prepare select");
    long sum = 0;
    for (long i = 0; i < rows_per_thread; i++) {
        key(k, sizeof k, t, (i * 7919) % rows_per_thread);
        sqlite3_bind_text(get, 1, k, -1, SQLITE_TRANSIENT);
        if (sqlite3_step(get) != SQLITE_ROW)
            die(db, "lookup");
        sum += sqlite3_column_int64(get, 0);
        sqlite3_reset(get);
    }
    sqlite3_finalize(get);
    sqlite3_close(db);
    return (void *)sum;
}

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 4 || (argc == 4 && strcmp(argv[3], "memstatus=0"))) {
        fprintf(stderr, "usage: sqlite_threads THREADS ROWS [memstatus=0]\n");
        return 2;
    }
    long nthreads = atol(argv[1]), rows = atol(argv[2]);
    if (nthreads < 1 || nthreads > 64 || rows < nthreads) {
        fprintf(stderr, "sqlite_threads: 1..64 threads, at least one row each\n");
        return 2;
    }
    if (argc == 4 && sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0) != SQLITE_OK) {
        fprintf(stderr, "sqlite_threads: SQLITE_CONFIG_MEMSTATUS refused\n");
        return 1;
    }
    if (sqlite3_threadsafe() == 0) {
        fprintf(stderr, "sqlite_threads: this libsqlite3 is built without threads\n");
        return 1;
    }
    rows_per_thread = rows / nthreads;
    pthread_t tid[64];
    for (long t = 0; t < nthreads; t++)
        if (pthread_create(&tid[t], NULL, worker, (void *)t))
            return 1;
    long sum = 0;
    for (long t = 0; t < nthreads; t++) {
        void *r;
        pthread_join(tid[t], &r);
        sum += (long)r;
    }
    printf("%ld\n", sum);
    return 0;
}
