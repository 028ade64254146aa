/* Two bits of one word as two locks (g_bit_lock), taken in opposite
 * orders by two threads 200 ms apart: confirmed when steered. */
#include <glib.h>
#include <stdio.h>

static volatile gint state;
static long n;

static gpointer forward(gpointer arg)
{
    (void)arg;
    g_bit_lock(&state, 0);
    g_bit_lock(&state, 1);
    n++;
    g_bit_unlock(&state, 1);
    g_bit_unlock(&state, 0);
    return NULL;
}

static gpointer backward(gpointer arg)
{
    (void)arg;
    g_usleep(200 * 1000);
    g_bit_lock(&state, 1);
    g_bit_lock(&state, 0);
    n++;
    g_bit_unlock(&state, 0);
    g_bit_unlock(&state, 1);
    return NULL;
}

int main(void)
{
    GThread *a = g_thread_new("forward", forward, NULL);
    GThread *b = g_thread_new("backward", backward, NULL);
    g_thread_join(a);
    g_thread_join(b);
    printf("n %ld\n", n);
    return 0;
}
