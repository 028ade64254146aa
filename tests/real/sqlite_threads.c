/* A threaded sqlite workload for check-real: NWRITERS threads each open
 * their own connection to one WAL database and insert rows in small
 * transactions (retrying on SQLITE_BUSY), while NREADERS threads run
 * aggregate queries on their own connections and one shared connection
 * (serialized mode: sqlite's recursive mutexes) is used by all threads.
 * Prints deterministic totals at the end. Usage: sqlite_threads DBFILE */
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define NWRITERS 3
#define NREADERS 2
#define ROWS 1500
#define BATCH 50

static const char *path;
static sqlite3 *shared;
static int writers_done;
static pthread_mutex_t done_lock = PTHREAD_MUTEX_INITIALIZER;

static void die(sqlite3 *db, const char *what)
{
    fprintf(stderr, "%s: %s\n", what, db ? sqlite3_errmsg(db) : "?");
    exit(1);
}

static sqlite3 *open_db(void)
{
    sqlite3 *db;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, NULL))
        die(db, "open");
    sqlite3_busy_timeout(db, 60000);
    return db;
}

static void exec(sqlite3 *db, const char *sql)
{
    char *err = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK) {
        fprintf(stderr, "%s: %s\n", sql, err);
        exit(1);
    }
}

static void *writer(void *arg)
{
    int id = (int)(long)arg;
    sqlite3 *db = open_db();
    sqlite3_stmt *ins;
    if (sqlite3_prepare_v2(db, "INSERT INTO t(w, k, v) VALUES (?, ?, ?)", -1, &ins, NULL))
        die(db, "prepare");
    for (int i = 0; i < ROWS; i += BATCH) {
        exec(db, "BEGIN IMMEDIATE");
        for (int j = i; j < i + BATCH; j++) {
            char v[64];
            snprintf(v, sizeof v, "w%d-row%05d-%08x", id, j, (unsigned)(j * 2654435761u));
            sqlite3_bind_int(ins, 1, id);
            sqlite3_bind_int(ins, 2, j);
            sqlite3_bind_text(ins, 3, v, -1, SQLITE_TRANSIENT);
            if (sqlite3_step(ins) != SQLITE_DONE)
                die(db, "insert");
            sqlite3_reset(ins);
        }
        exec(db, "COMMIT");
        /* the shared connection: serialized mode, used by every thread */
        sqlite3_stmt *s;
        if (sqlite3_prepare_v2(shared, "SELECT count(*) FROM t WHERE w = ?", -1, &s, NULL))
            die(shared, "prepare shared");
        sqlite3_bind_int(s, 1, id);
        if (sqlite3_step(s) != SQLITE_ROW || sqlite3_column_int(s, 0) < i + BATCH)
            die(shared, "shared count");
        sqlite3_finalize(s);
    }
    sqlite3_finalize(ins);
    sqlite3_close(db);
    pthread_mutex_lock(&done_lock);
    writers_done++;
    pthread_mutex_unlock(&done_lock);
    return NULL;
}

static void *reader(void *arg)
{
    (void)arg;
    sqlite3 *db = open_db();
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(db, "SELECT count(*), total(k), max(v) FROM t", -1, &q, NULL))
        die(db, "prepare reader");
    for (;;) {
        pthread_mutex_lock(&done_lock);
        int done = writers_done == NWRITERS;
        pthread_mutex_unlock(&done_lock);
        if (sqlite3_step(q) != SQLITE_ROW)
            die(db, "read");
        sqlite3_reset(q);
        if (done)
            break;
        usleep(2000);
    }
    sqlite3_finalize(q);
    sqlite3_close(db);
    return NULL;
}

static int print_row(void *u, int n, char **vals, char **cols)
{
    (void)u; (void)cols;
    for (int i = 0; i < n; i++)
        printf("%s%s", i ? "|" : "", vals[i] ? vals[i] : "NULL");
    printf("\n");
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) { fprintf(stderr, "usage: sqlite_threads DBFILE\n"); return 2; }
    path = argv[1];
    /* A fresh database: a WAL or shm file left by an earlier run would be
     * replayed into it. */
    char side[4096];
    unlink(path);
    snprintf(side, sizeof side, "%s-wal", path);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", path);
    unlink(side);
    if (!sqlite3_threadsafe()) { fprintf(stderr, "sqlite not threadsafe\n"); return 1; }
    shared = open_db();
    exec(shared, "PRAGMA journal_mode=WAL; PRAGMA synchronous=OFF; "
                 "CREATE TABLE t(id INTEGER PRIMARY KEY, w INTEGER, k INTEGER, v TEXT); "
                 "CREATE INDEX tk ON t(k, w);");
    pthread_t th[NWRITERS + NREADERS];
    for (long i = 0; i < NWRITERS; i++)
        pthread_create(&th[i], NULL, writer, (void *)i);
    for (long i = 0; i < NREADERS; i++)
        pthread_create(&th[NWRITERS + i], NULL, reader, (void *)i);
    for (int i = 0; i < NWRITERS + NREADERS; i++)
        pthread_join(th[i], NULL);
    char *err = NULL;
    if (sqlite3_exec(shared, "SELECT w, count(*), sum(k), min(v), max(v) FROM t GROUP BY w ORDER BY w; "
                             "PRAGMA threads=2; "
                             "SELECT count(DISTINCT v), count(*) FROM (SELECT v FROM t ORDER BY v DESC); "
                             "PRAGMA integrity_check;",
                     print_row, NULL, &err) != SQLITE_OK) {
        fprintf(stderr, "final: %s\n", err);
        return 1;
    }
    sqlite3_close(shared);
    return 0;
}
