/* Three threads on bits 0 and 1 of one word and a GMutex, always in the
 * order bit 0, the GMutex, bit 1: no cycle. "mark" holds bit 1 long
 * enough for the watchdog to look (its timeout is short here); "commit"
 * holds the GMutex and waits for bit 1; "scan" holds bit 0 and waits for
 * the GMutex. Were both bits one lock, scan -> commit -> "the word" ->
 * scan would look like a cycle, and the watchdog would name scan as the
 * holder commit waits for and end the run. Nothing to report. */
// expect: none
// options: deadlock_timeout_ms=20:hang_timeout_ms=10000:hang_severity=warning:halt_on_error=1
#include <glib.h>
static volatile gint word;
static GMutex table;
static gint stage;

static void wait_stage(int n)
{
    while (g_atomic_int_get(&stage) < n)
        g_usleep(1000);
}

static gpointer mark(gpointer arg)
{
    (void)arg;
    g_bit_lock(&word, 1);
    g_atomic_int_set(&stage, 1);
    wait_stage(3);
    g_usleep(300 * 1000); /* commit and scan are blocked meanwhile */
    g_bit_unlock(&word, 1);
    return NULL;
}

static gpointer commit(gpointer arg)
{
    (void)arg;
    wait_stage(1);
    g_mutex_lock(&table);
    g_atomic_int_set(&stage, 2);
    g_bit_lock(&word, 1); /* blocks until mark is done */
    g_bit_unlock(&word, 1);
    g_mutex_unlock(&table);
    return NULL;
}

static gpointer scan(gpointer arg)
{
    (void)arg;
    wait_stage(2);
    g_bit_lock(&word, 0); /* free: mark holds bit 1 only */
    g_atomic_int_set(&stage, 3);
    g_mutex_lock(&table); /* blocks until commit is done */
    g_mutex_unlock(&table);
    g_bit_unlock(&word, 0);
    return NULL;
}

int main(void)
{
    GThread *m = g_thread_new("mark", mark, NULL);
    GThread *c = g_thread_new("commit", commit, NULL);
    GThread *s = g_thread_new("scan", scan, NULL);
    g_thread_join(m);
    g_thread_join(c);
    g_thread_join(s);
    return word == 0 ? 0 : 1;
}
