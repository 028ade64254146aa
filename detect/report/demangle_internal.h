/* The demangler's parts (detect/report/demangle.c): the tree the parser builds
 * (demangle_names.c: names and encodings; demangle_types.c: types and
 * template arguments) and the printer walks (demangle.c). */
#ifndef RTDD_DEMANGLE_INTERNAL_H
#define RTDD_DEMANGLE_INTERNAL_H
#include <string.h>

#define MAX_NODES 1024
#define MAX_SUBS 256
#define MAX_DEPTH 96
#define MAX_PRINT_STEPS 200000

enum kind {
    K_NAME,     /* s: text */
    K_BUILTIN,  /* s: text (not a substitution candidate) */
    K_NESTED,   /* a::b */
    K_TEMPLATE, /* a<list b> */
    K_QUAL,     /* a const volatile (cv) */
    K_POINTER,  /* a* */
    K_LREF,     /* a& */
    K_RREF,     /* a&& */
    K_FUNC,     /* a (list b) cv ref: a function type, a its return type */
    K_ARRAY,    /* a [s] */
    K_PTRMEM,   /* b a::* */
    K_ENCODING, /* [c ]a(list b) cv ref */
    K_SPECIAL,  /* s a: "vtable for " */
    K_LITERAL,  /* a template argument's value s of builtin type a */
    K_ABI,      /* a[abi:s] */
    K_LOCAL,    /* a::b (a function's local entity) */
    K_EXPAND,   /* a... */
    K_PACK,     /* list a, printed comma-separated */
    K_CLONE,    /* a [clone s] */
    K_CTOR,     /* the base name of a, "~" first when dtor */
    K_CONV,     /* operator a */
    K_LAMBDA,   /* {lambda(list a)#num} */
    K_UNNAMED,  /* {unnamed type#num} */
    K_OPERATOR, /* operator s */
    K_VENDOR_Q, /* a s: a vendor qualifier */
};

enum { CV_CONST = 1, CV_VOLATILE = 2, CV_RESTRICT = 4 };

struct node {
    unsigned char kind, cv, ref, flag; /* ref: 1 "&", 2 "&&"; flag: dtor, negative literal */
    unsigned len, num;
    const char *s;
    struct node *a, *b, *c, *next; /* next: the following element of a list */
};

struct dm {
    const char *p, *end;
    int failed, depth, in_type, in_local; /* failed: 1 error, 2 output cut */
    unsigned steps;
    struct node nodes[MAX_NODES];
    unsigned nnodes, nsubs;
    struct node *subs[MAX_SUBS];
    struct node *tparams;      /* list: the args of the encoding's template name */
    char *out;
    size_t pos, cap;
    const struct node *expanding; /* the pack a K_EXPAND is printing, element expand_i */
    unsigned expand_i;
};

/* Parsers of the grammar's productions; NULL (and d->failed) on error. */
struct node *dm_parse_type(struct dm *d);
struct node *dm_parse_function_type(struct dm *d);
struct node *dm_parse_template_args(struct dm *d);
struct node *dm_parse_encoding(struct dm *d);
struct node *dm_parse_clones(struct dm *d, struct node *n);
/* quals (or NULL) receives a member function's qualifiers, N K ... E. */
struct node *dm_parse_name(struct dm *d, int *is_template, struct node **quals);
struct node *dm_parse_source_name(struct dm *d);
struct node *dm_parse_template_param(struct dm *d);
struct node *dm_parse_substitution(struct dm *d);

/* ---- parsing helpers ---- */

static inline int look(struct dm *d, unsigned i)
{
    return d->p + i < d->end ? (unsigned char)d->p[i] : 0;
}

static inline int eat(struct dm *d, char c)
{
    if (look(d, 0) == (unsigned char)c) {
        d->p++;
        return 1;
    }
    return 0;
}

static inline struct node *fail(struct dm *d)
{
    d->failed = 1;
    return NULL;
}

static inline struct node *mk(struct dm *d, int kind, struct node *a, struct node *b)
{
    if (d->failed || d->nnodes >= MAX_NODES)
        return fail(d);
    struct node *n = &d->nodes[d->nnodes++];
    memset(n, 0, sizeof *n);
    n->kind = (unsigned char)kind;
    n->a = a;
    n->b = b;
    return n;
}

static inline struct node *mk_text(struct dm *d, int kind, const char *s, unsigned len)
{
    struct node *n = mk(d, kind, NULL, NULL);
    if (n) {
        n->s = s;
        n->len = len;
    }
    return n;
}

static inline struct node *mk_str(struct dm *d, int kind, const char *s)
{
    return mk_text(d, kind, s, (unsigned)strlen(s));
}

static inline void add_sub(struct dm *d, struct node *n)
{
    if (!n || d->failed)
        return;
    if (d->nsubs >= MAX_SUBS) {
        fail(d);
        return;
    }
    d->subs[d->nsubs++] = n;
}

/* Lists link their elements through next: an element is a copy of the
 * node, which may be a substitution already in another list. */
static inline int append(struct dm *d, struct node ***tail, struct node *n)
{
    struct node *c = n ? mk(d, K_NAME, NULL, NULL) : NULL;
    if (!c)
        return 0;
    *c = *n;
    c->next = NULL;
    **tail = c;
    *tail = &c->next;
    return 1;
}

/* <number> ::= [n] <decimal>; returns -1 when there is none. */
static inline long parse_number(struct dm *d, int *negative)
{
    int neg = eat(d, 'n');
    if (negative)
        *negative = neg;
    else if (neg)
        return -1;
    if (look(d, 0) < '0' || look(d, 0) > '9')
        return -1;
    long v = 0;
    while (look(d, 0) >= '0' && look(d, 0) <= '9') {
        if (v > 100000000)
            return -1;
        v = v * 10 + (*d->p++ - '0');
    }
    return v;
}

#endif
