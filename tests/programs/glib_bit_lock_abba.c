/* Bits 0 and 1 of one word are two locks, and two threads that take them
 * in opposite orders can deadlock (each holds one bit and waits for the
 * other): a lock-order inversion between the two bits, found although the
 * threads run one after the other here. */
// expect: lock-order-inversion
// log: cycle: bit 1 of state -> bit 0 of state -> bit 1 of state
// log: already holds lock [bit 1 of the word at 0x
#include <glib.h>
static volatile gint state;

static gpointer forward(gpointer arg)
{
    (void)arg;
    g_bit_lock(&state, 0);
    g_bit_lock(&state, 1);
    g_bit_unlock(&state, 1);
    g_bit_unlock(&state, 0);
    return NULL;
}

static gpointer backward(gpointer arg)
{
    (void)arg;
    g_bit_lock(&state, 1);
    g_bit_lock(&state, 0);
    g_bit_unlock(&state, 0);
    g_bit_unlock(&state, 1);
    return NULL;
}

int main(void)
{
    g_thread_join(g_thread_new("forward", forward, NULL));
    g_thread_join(g_thread_new("backward", backward, NULL));
    return 0;
}
