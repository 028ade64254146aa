/* GLib's locks (issue 19): on Linux GMutex and GCond are futex words that
 * no pthread call sees, and GRecMutex and GRWLock wrap a pthread lock that
 * GLib allocates itself. Their exported functions are interposed here and
 * give the engine the same events as pthread locks, under GLib's names;
 * the real functions are found in GLib at their first call (a program
 * that calls none never needs GLib). The pthread calls GLib makes inside
 * pass straight through (the guard), so each lock is one lock, at the
 * address of the program's GRecMutex or GRWLock. */
#include "lockwrap.h"

typedef union { void *p; unsigned i[2]; } g_mutex;

/* The next definition of name (GLib's), once; NULL if GLib has none. */
static void *glib_real(const char *name, void *_Atomic *slot)
{
    void *fn = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (unlikely(!fn)) {
        rti_guard++; /* dlsym may allocate */
        fn = rti_next_symbol(name);
        rti_guard--;
        __atomic_store_n(slot, fn, __ATOMIC_RELEASE);
    }
    return fn;
}
#define REAL(name, type) ((type)glib_real(#name, &real_##name))
#define REAL_SLOT(name) static void *_Atomic real_##name

REAL_SLOT(g_mutex_init);
REAL_SLOT(g_mutex_clear);
REAL_SLOT(g_mutex_lock);
REAL_SLOT(g_mutex_trylock);
REAL_SLOT(g_mutex_unlock);
REAL_SLOT(g_rec_mutex_init);
REAL_SLOT(g_rec_mutex_clear);
REAL_SLOT(g_rec_mutex_lock);
REAL_SLOT(g_rec_mutex_trylock);
REAL_SLOT(g_rec_mutex_unlock);
REAL_SLOT(g_rw_lock_init);
REAL_SLOT(g_rw_lock_clear);
REAL_SLOT(g_rw_lock_writer_lock);
REAL_SLOT(g_rw_lock_writer_trylock);
REAL_SLOT(g_rw_lock_writer_unlock);
REAL_SLOT(g_rw_lock_reader_lock);
REAL_SLOT(g_rw_lock_reader_trylock);
REAL_SLOT(g_rw_lock_reader_unlock);
REAL_SLOT(g_cond_wait);
REAL_SLOT(g_cond_wait_until);
REAL_SLOT(g_cond_signal);
REAL_SLOT(g_cond_broadcast);
REAL_SLOT(g_bit_lock);
REAL_SLOT(g_bit_trylock);
REAL_SLOT(g_bit_unlock);
REAL_SLOT(g_pointer_bit_lock);
REAL_SLOT(g_pointer_bit_trylock);
REAL_SLOT(g_pointer_bit_unlock);

typedef void (*obj_fn)(void *);
typedef int (*try_fn)(void *);

/* A real GLib call with the runtime out of the way: GLib's own pthread
 * calls inside are not a second lock. Returns 0 (ok) for void calls. */
static int call_void(obj_fn fn, void *obj)
{
    rti_guard++;
    fn(obj);
    rti_guard--;
    return 0;
}

static int call_try(try_fn fn, void *obj)
{
    rti_guard++;
    int r = fn(obj);
    rti_guard--;
    return r;
}

#define ZERO_OK(r) ((r) == 0)
#define TRUE_OK(r) ((r) != 0)
#define NEVER_REJECTED(r) ((void)(r), 0)

static int gmutex_taken(const void *m)
{
    return __atomic_load_n(&((const g_mutex *)m)->i[0], __ATOMIC_RELAXED) != 0;
}

/* The exported functions: GLib's real one found, then the body (which
 * takes the caller's address: the wrapper's own frame is not the site). */
#define VOID_ENTRY(name)                            \
    RTI_EXPORT void name(void *obj)                 \
    {                                               \
        obj_fn fn = REAL(name, obj_fn);             \
        if (fn)                                     \
            name##_body(obj, RTI_CALLER(), fn);     \
    }
#define TRY_ENTRY(name)                                        \
    RTI_EXPORT int name(void *obj)                             \
    {                                                          \
        try_fn fn = REAL(name, try_fn);                        \
        return fn ? name##_body(obj, RTI_CALLER(), fn) : 0;    \
    }
#define INIT_WRAPPER(name, type)                                   \
    RTI_EXPORT void name(void *obj)                                \
    {                                                              \
        obj_fn fn = REAL(name, obj_fn);                            \
        if (fn)                                                    \
            call_void(fn, obj);                                    \
        rti_after_init(0, (uintptr_t)obj, (type), RTI_CALLER());   \
    }
#define CLEAR_WRAPPER(name)                                        \
    RTI_EXPORT void name(void *obj)                                \
    {                                                              \
        rti_before_destroy((uintptr_t)obj, RTI_CALLER());          \
        obj_fn fn = REAL(name, obj_fn);                            \
        if (fn)                                                    \
            call_void(fn, obj);                                    \
    }
/* GRecMutex and GRWLock: no peek at a word that would say a call blocks
 * (theirs is GLib's allocation); a nested wait is shown all the same. */
#define LOCK_WRAPPER(name, type, flags)                                                       \
    static int name##_body(void *obj, uintptr_t caller, obj_fn fn)                            \
    {                                                                                         \
        RTI_LOCK_BODY_AT(caller, obj, (type), RTI_AS_IS, (flags), call_void(fn, obj), ZERO_OK); \
    }                                                                                         \
    VOID_ENTRY(name)
#define TRYLOCK_WRAPPER(name, type, flags)                                                    \
    static int name##_body(void *obj, uintptr_t caller, try_fn fn)                            \
    {                                                                                         \
        RTI_LOCK_BODY_AT(caller, obj, (type), RTI_AS_IS, (flags) | RT_ACQ_TRY, call_try(fn, obj), TRUE_OK); \
    }                                                                                         \
    TRY_ENTRY(name)
#define UNLOCK_WRAPPER(name, word_unlocked)                                                   \
    static int name##_body(void *obj, uintptr_t caller, obj_fn fn)                            \
    {                                                                                         \
        RTI_UNLOCK_BODY_AT(caller, obj, call_void(fn, obj), #name, (word_unlocked), NEVER_REJECTED); \
    }                                                                                         \
    VOID_ENTRY(name)

/* GMutex: its word says when a lock call will block (shown to the watchdog
 * first, as for a pthread mutex) and judges an unlock of a GMutex never
 * seen locked. */
INIT_WRAPPER(g_mutex_init, RT_LOCK_GMUTEX)
CLEAR_WRAPPER(g_mutex_clear)
static int g_mutex_lock_body(void *m, uintptr_t caller, obj_fn fn)
{
    RTI_LOCK_BODY_AT(caller, m, RT_LOCK_GMUTEX, RTI_AS_IS, 0,
                     RTI_PEEK_THEN_BLOCK(m, RT_LOCK_GMUTEX, 0, gmutex_taken(m), call_void(fn, m), ZERO_OK), ZERO_OK);
}
VOID_ENTRY(g_mutex_lock)
TRYLOCK_WRAPPER(g_mutex_trylock, RT_LOCK_GMUTEX, 0)
UNLOCK_WRAPPER(g_mutex_unlock, !gmutex_taken(obj))

INIT_WRAPPER(g_rec_mutex_init, RT_LOCK_GRECMUTEX)
CLEAR_WRAPPER(g_rec_mutex_clear)
LOCK_WRAPPER(g_rec_mutex_lock, RT_LOCK_GRECMUTEX, 0)
TRYLOCK_WRAPPER(g_rec_mutex_trylock, RT_LOCK_GRECMUTEX, 0)
UNLOCK_WRAPPER(g_rec_mutex_unlock, -1)
INIT_WRAPPER(g_rw_lock_init, RT_LOCK_GRWLOCK)
CLEAR_WRAPPER(g_rw_lock_clear)
LOCK_WRAPPER(g_rw_lock_writer_lock, RT_LOCK_GRWLOCK, 0)
TRYLOCK_WRAPPER(g_rw_lock_writer_trylock, RT_LOCK_GRWLOCK, 0)
UNLOCK_WRAPPER(g_rw_lock_writer_unlock, -1)
LOCK_WRAPPER(g_rw_lock_reader_lock, RT_LOCK_GRWLOCK, RT_ACQ_READ)
TRYLOCK_WRAPPER(g_rw_lock_reader_trylock, RT_LOCK_GRWLOCK, RT_ACQ_READ)
UNLOCK_WRAPPER(g_rw_lock_reader_unlock, -1)

/* GCond: the wait releases and takes the GMutex inside GLib, where no
 * wrapper sees it; modelled as pthread_cond_wait is (detect/hang/cond.c). */
static void gcond_wait_begin(struct rt_thread *t, void *c, void *m, int timed, uintptr_t pc)
{
    rt_lock_lookup(t, (uintptr_t)c, RT_LOCK_GCOND, pc); /* made as a GCond, if new */
    if (unlikely(rt_steer_on)) /* a cond-lock-order rerun: the waiter's site */
        rt_steer_before_event_wait(t, pc);
    rt_on_cond_wait_begin(t, (uintptr_t)c, (uintptr_t)m, gmutex_taken(m), timed, 0, pc);
}

RTI_EXPORT void g_cond_wait(void *c, void *m)
{
    void (*fn)(void *, void *) = REAL(g_cond_wait, void (*)(void *, void *));
    uintptr_t pc = RTI_CALLER();
    if (!fn)
        return;
    struct rt_thread *t = rti_enter();
    if (!t) {
        fn(c, m);
        return;
    }
    gcond_wait_begin(t, c, m, 0, pc);
    rti_leave();
    fn(c, m);
    rti_guard++;
    rt_on_cond_wait_end(t, (uintptr_t)c, (uintptr_t)m, RT_WAIT_WOKEN, pc);
    rti_guard--;
}

RTI_EXPORT int g_cond_wait_until(void *c, void *m, int64_t end_time)
{
    int (*fn)(void *, void *, int64_t) = REAL(g_cond_wait_until, int (*)(void *, void *, int64_t));
    uintptr_t pc = RTI_CALLER();
    if (!fn)
        return 0;
    struct rt_thread *t = rti_enter();
    if (!t)
        return fn(c, m, end_time);
    gcond_wait_begin(t, c, m, 1, pc);
    rti_leave();
    int r = fn(c, m, end_time);
    rti_guard++;
    rt_on_cond_wait_end(t, (uintptr_t)c, (uintptr_t)m, r ? RT_WAIT_WOKEN : RT_WAIT_TIMEDOUT, pc); /* FALSE: timed out */
    rti_guard--;
    return r;
}

/* all: a broadcast, which releases every waiter (detect/hang/cond.c). */
static void gcond_signal(void *c, obj_fn fn, int all, uintptr_t pc)
{
    struct rt_thread *t = rti_enter();
    if (t) {
        rt_on_event_signal(t, (uintptr_t)c, RT_LOCK_GCOND, pc);
        rti_leave();
    }
    fn(c);
    if (t) {
        rti_guard++;
        rt_on_cond_released(t, (uintptr_t)c, all);
        rti_guard--;
    }
}

RTI_EXPORT void g_cond_signal(void *c)
{
    obj_fn fn = REAL(g_cond_signal, obj_fn);
    if (fn)
        gcond_signal(c, fn, 0, RTI_CALLER());
}

RTI_EXPORT void g_cond_broadcast(void *c)
{
    obj_fn fn = REAL(g_cond_broadcast, obj_fn);
    if (fn)
        gcond_signal(c, fn, 1, RTI_CALLER());
}

/* Bit locks: one bit of an int or of a pointer, a futex each. Each bit is
 * its own lock (GLib's API takes the bit so that one word can carry
 * several), known by its bit key (detect/locks/locktab.h): the order graph, the
 * held stacks and the watchdog tell bits 0 and 1 of a word apart, while a
 * free of the word still finds both. */
typedef void (*bit_fn)(void *, int);
typedef int (*bit_try_fn)(void *, int);

static void *bit_key(void *address, int bit)
{
    return (void *)rt_bit_key((uintptr_t)address, (unsigned)bit);
}

static int bit_set(const void *address, int bit, int pointer)
{
    uintptr_t word = pointer ? (uintptr_t)__atomic_load_n((void *const *)address, __ATOMIC_RELAXED)
                             : (uintptr_t)(unsigned)__atomic_load_n((const int *)address, __ATOMIC_RELAXED);
    return (int)((word >> bit) & 1);
}

static int call_bit(bit_fn fn, void *address, int bit)
{
    rti_guard++;
    fn(address, bit);
    rti_guard--;
    return 0;
}

static int call_bit_try(bit_try_fn fn, void *address, int bit)
{
    rti_guard++;
    int r = fn(address, bit);
    rti_guard--;
    return r;
}

static int bit_lock_body(void *address, int bit, int pointer, bit_fn fn, uintptr_t caller)
{
    void *key = bit_key(address, bit);
    RTI_LOCK_BODY_AT(caller, key, RT_LOCK_GBITLOCK, RTI_AS_IS, 0,
                     RTI_PEEK_THEN_BLOCK(key, RT_LOCK_GBITLOCK, 0, bit_set(address, bit, pointer),
                                         call_bit(fn, address, bit), ZERO_OK),
                     ZERO_OK);
}

static int bit_trylock_body(void *address, int bit, bit_try_fn fn, uintptr_t caller)
{
    void *key = bit_key(address, bit);
    RTI_LOCK_BODY_AT(caller, key, RT_LOCK_GBITLOCK, RTI_AS_IS, RT_ACQ_TRY, call_bit_try(fn, address, bit), TRUE_OK);
}

static int bit_unlock_body(void *address, int bit, int pointer, bit_fn fn, const char *call, uintptr_t caller)
{
    void *key = bit_key(address, bit);
    RTI_UNLOCK_BODY_AT(caller, key, call_bit(fn, address, bit), call, !bit_set(address, bit, pointer), NEVER_REJECTED);
}

#define BIT_ENTRIES(lock, trylock, unlock, pointer)                                               \
    RTI_EXPORT void lock(void *address, int bit)                                                  \
    {                                                                                             \
        bit_fn fn = REAL(lock, bit_fn);                                                           \
        if (fn)                                                                                   \
            bit_lock_body(address, bit, (pointer), fn, RTI_CALLER());                             \
    }                                                                                             \
    RTI_EXPORT int trylock(void *address, int bit)                                                \
    {                                                                                             \
        bit_try_fn fn = REAL(trylock, bit_try_fn);                                                \
        return fn ? bit_trylock_body(address, bit, fn, RTI_CALLER()) : 0;                         \
    }                                                                                             \
    RTI_EXPORT void unlock(void *address, int bit)                                                \
    {                                                                                             \
        bit_fn fn = REAL(unlock, bit_fn);                                                         \
        if (fn)                                                                                   \
            bit_unlock_body(address, bit, (pointer), fn, #unlock, RTI_CALLER());                  \
    }

BIT_ENTRIES(g_bit_lock, g_bit_trylock, g_bit_unlock, 0)
BIT_ENTRIES(g_pointer_bit_lock, g_pointer_bit_trylock, g_pointer_bit_unlock, 1)
