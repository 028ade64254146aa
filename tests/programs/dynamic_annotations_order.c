/* Two threads take two annotated spinlocks of the program's own in
 * opposite orders (one after the other, so this run cannot hang). The
 * locks are described only by ThreadSanitizer's dynamic annotations
 * (AnnotateRWLock*), which librtdd.so defines: they join the lock-order
 * graph with no rebuild. */
// expect: lock-order-inversion
// log: WARNING: possible circular locking dependency detected
// log: annotated reader-writer lock
// exit: 66
#include "dynamic_annotations.h"
#include <pthread.h>
static struct spin accounts, audit;

static void *auditor(void *arg)
{
    (void)arg;
    spin_lock(&audit);
    spin_lock(&accounts);
    spin_unlock(&accounts);
    spin_unlock(&audit);
    return NULL;
}

int main(void)
{
    spin_init(&accounts);
    spin_init(&audit);
    spin_lock(&accounts);
    spin_lock(&audit);
    spin_unlock(&audit);
    spin_unlock(&accounts);
    pthread_t t;
    pthread_create(&t, NULL, auditor, NULL);
    pthread_join(t, NULL);
    spin_destroy(&audit);
    spin_destroy(&accounts);
    return 0;
}
