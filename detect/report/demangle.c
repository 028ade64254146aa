/* An Itanium C++ ABI demangler (https://itanium-cxx-abi.github.io/cxx-abi/abi.html#mangling).
 * Two passes: a recursive-descent parser builds a small tree of nodes in a
 * fixed arena (substitutions and template parameters are references to
 * earlier nodes), then a printer walks it in C++ declarator order (a type's
 * "left" part, then its "right": int (*)(char) is printed around the "*").
 * Everything is bounded — nodes, substitutions, recursion depth, output —
 * and anything outside the grammar this covers makes rt_demangle return 0,
 * so the caller prints the mangled name rather than a wrong one. */
#include "report/demangle.h"
#include "report/demangle_internal.h"
#include <string.h>

/* ---- printing ---- */

static void emit(struct dm *d, const char *s, size_t n)
{
    if (d->pos + n >= d->cap) {
        n = d->pos + 1 < d->cap ? d->cap - 1 - d->pos : 0;
        d->failed |= 2; /* truncated */
    }
    memcpy(d->out + d->pos, s, n);
    d->pos += n;
}

static void emits(struct dm *d, const char *s)
{
    emit(d, s, strlen(s));
}

static void emit_uint(struct dm *d, unsigned v)
{
    char buf[16];
    int i = sizeof buf;
    do
        buf[--i] = (char)('0' + v % 10);
    while ((v /= 10) && i > 0);
    emit(d, buf + i, sizeof buf - (size_t)i);
}

static void print(struct dm *d, const struct node *n);
static void print_right(struct dm *d, const struct node *n);

/* The argument pack a pack expansion's pattern refers to (Dp T_ with T_ a
 * pack): the pattern is printed once per element. */
static const struct node *find_pack(const struct node *n, int depth)
{
    if (!n || depth > 16)
        return NULL;
    if (n->kind == K_PACK && !n->flag)
        return n;
    if (n->kind == K_EXPAND)
        return NULL;
    const struct node *p = find_pack(n->a, depth + 1);
    if (!p && n->kind != K_NAME && n->kind != K_BUILTIN) {
        for (const struct node *e = n->b; e && !p; e = e->next)
            p = find_pack(e, depth + 1);
    }
    return p;
}

static int prints_nothing(const struct node *n)
{
    if (n->kind == K_PACK && !n->flag) {
        for (const struct node *e = n->a; e; e = e->next)
            if (!prints_nothing(e))
                return 0;
        return 1;
    }
    if (n->kind == K_EXPAND) {
        const struct node *p = find_pack(n->a, 0);
        return p && !p->a;
    }
    return 0;
}

static void print_list(struct dm *d, const struct node *n)
{
    for (int first = 1; n; n = n->next) {
        if (prints_nothing(n))
            continue; /* an empty pack adds no argument */
        if (!first)
            emits(d, ", ");
        print(d, n);
        first = 0;
    }
}

static void print_cv(struct dm *d, unsigned cv)
{
    if (cv & CV_CONST)
        emits(d, " const");
    if (cv & CV_VOLATILE)
        emits(d, " volatile");
    if (cv & CV_RESTRICT)
        emits(d, " restrict");
}

static void print_ref(struct dm *d, unsigned ref)
{
    if (ref)
        emits(d, ref == 1 ? " &" : " &&");
}

/* The element of the pack being expanded that is printed now. */
static const struct node *element(const struct dm *d, const struct node *pack)
{
    const struct node *e = pack->a;
    for (unsigned k = 0; e && k < d->expand_i; k++)
        e = e->next;
    return e;
}

/* A reference or qualified type as printed: through the pack element. */
static const struct node *through_pack(const struct dm *d, const struct node *n)
{
    for (int i = 0; n && n->kind == K_PACK && n == d->expanding && i < 8; i++)
        n = element(d, n);
    return n;
}

/* A node as printed: inside a pack expansion, the pack's current element. */
static const struct node *resolve(const struct dm *d, const struct node *n)
{
    for (int i = 0; n && i < 8; i++) {
        if (n->kind == K_QUAL || n->kind == K_VENDOR_Q)
            n = n->a;
        else if (n->kind == K_PACK && n == d->expanding) {
            n = n->a;
            for (unsigned k = 0; n && k < d->expand_i; k++)
                n = n->next;
        } else
            break;
    }
    return n;
}

static int is_func(const struct dm *d, const struct node *n)
{
    n = resolve(d, n);
    return n && n->kind == K_FUNC;
}

/* A pointer to a function or an array is written inside parentheses. */
static int wants_parens(const struct dm *d, const struct node *n)
{
    n = resolve(d, n);
    return n && (n->kind == K_FUNC || n->kind == K_ARRAY);
}

static const char *open_paren(const struct dm *d, const struct node *n)
{
    return is_func(d, n) ? "(" : " (";
}

static void print_literal(struct dm *d, const struct node *n)
{
    static const struct { const char *type, *suffix; } ints[] = {
        {"int", ""}, {"unsigned int", "u"}, {"long", "l"}, {"unsigned long", "ul"},
        {"long long", "ll"}, {"unsigned long long", "ull"},
    };
    const char *t = n->a->kind == K_BUILTIN ? n->a->s : NULL;
    if (t && !strcmp(t, "bool") && n->len == 1 && (n->s[0] == '0' || n->s[0] == '1')) {
        emits(d, n->s[0] == '1' ? "true" : "false");
        return;
    }
    for (unsigned i = 0; t && i < sizeof ints / sizeof ints[0]; i++)
        if (!strcmp(t, ints[i].type)) {
            if (n->flag)
                emits(d, "-");
            emit(d, n->s, n->len);
            emits(d, ints[i].suffix);
            return;
        }
    emits(d, "(");
    print(d, n->a);
    emits(d, ")");
    if (n->flag)
        emits(d, "-");
    emit(d, n->s, n->len);
}

static void print_left(struct dm *d, const struct node *n)
{
    /* Substitutions make a DAG whose printing can double at each level: a
     * budget of steps bounds the time; a full buffer ends the walk. */
    if (d->failed & 2)
        return;
    if (!n || d->depth++ > 4 * MAX_DEPTH || (d->failed & 1) || ++d->steps > MAX_PRINT_STEPS) {
        d->failed |= 1;
        return;
    }
    switch (n->kind) {
    case K_NAME:
    case K_BUILTIN:
        emit(d, n->s, n->len);
        break;
    case K_OPERATOR:
        emits(d, "operator");
        if (n->s[0] >= 'a' && n->s[0] <= 'z')
            emits(d, " ");
        emit(d, n->s, n->len);
        break;
    case K_NESTED:
        print(d, n->a);
        if (n->flag == 1) /* a std:: abbreviation: its base name is for ctors only */
            break;
        if (n->a && n->a->kind != K_OPERATOR && n->flag != 2)
            emits(d, "::");
        print(d, n->b);
        break;
    case K_LOCAL: /* the function's name and parameters, not its return type */
        d->in_local++;
        print(d, n->a);
        d->in_local--;
        emits(d, "::");
        print(d, n->b);
        break;
    case K_TEMPLATE:
        print(d, n->a);
        if (d->pos && d->out[d->pos - 1] == '<')
            emits(d, " ");
        emits(d, "<");
        print_list(d, n->b);
        if (d->pos && d->out[d->pos - 1] == '>')
            emits(d, " ");
        emits(d, ">");
        break;
    case K_QUAL: {
        const struct node *in = through_pack(d, n->a);
        print_left(d, n->a);
        if (!is_func(d, n)) /* T const with T = int const: one const */
            print_cv(d, n->cv & ~(in && in->kind == K_QUAL ? in->cv : 0));
        break;
    }
    case K_VENDOR_Q:
        print_left(d, n->a);
        emits(d, " ");
        emit(d, n->s, n->len);
        break;
    case K_LREF:
    case K_RREF: {
        /* Reference collapsing: T& with T = U&& is U&; T&& with T = U& is U&. */
        const struct node *in = through_pack(d, n->a);
        if (in && (in->kind == K_LREF || in->kind == K_RREF)) {
            print_left(d, in->kind == K_LREF || n->kind == K_RREF ? in : n->a == in ? in : in);
            if (n->kind == K_LREF && in->kind == K_RREF) {
                d->pos -= d->pos >= 2 && !memcmp(d->out + d->pos - 2, "&&", 2) ? 1 : 0;
            }
            break;
        }
    }
        __attribute__((fallthrough));
    case K_POINTER:
        print_left(d, n->a);
        if (wants_parens(d, n->a))
            emits(d, open_paren(d, n->a));
        emits(d, n->kind == K_POINTER ? "*" : n->kind == K_LREF ? "&" : "&&");
        break;
    case K_PTRMEM:
        print_left(d, n->b);
        emits(d, wants_parens(d, n->b) ? open_paren(d, n->b) : " ");
        print(d, n->a);
        emits(d, "::*");
        break;
    case K_FUNC: {
        print_left(d, n->a);
        size_t i = d->pos; /* void (*(int))(char): no space inside the declarator */
        while (i > 0 && (d->out[i - 1] == '*' || d->out[i - 1] == '&'))
            i--;
        if (i == d->pos || i == 0 || d->out[i - 1] != '(')
            emits(d, " ");
        break;
    }
    case K_ARRAY:
        print_left(d, n->a);
        break;
    case K_ENCODING:
        if (n->c && !d->in_local) {
            print(d, n->c);
            emits(d, " ");
        }
        print(d, n->a);
        emits(d, "(");
        print_list(d, n->b);
        emits(d, ")");
        print_cv(d, n->cv);
        print_ref(d, n->ref);
        break;
    case K_SPECIAL:
        emit(d, n->s, n->len);
        if (n->flag) {
            emit_uint(d, n->num);
            emits(d, " for ");
        }
        print(d, n->a);
        break;
    case K_LITERAL:
        print_literal(d, n);
        break;
    case K_ABI:
        print(d, n->a);
        emits(d, "[abi:");
        emit(d, n->s, n->len);
        emits(d, "]");
        break;
    case K_EXPAND: {
        const struct node *pack = find_pack(n->a, 0), *save = d->expanding;
        unsigned save_i = d->expand_i, i = 0;
        if (!pack) {
            print(d, n->a);
            emits(d, "...");
            break;
        }
        for (const struct node *e = pack->a; e; e = e->next, i++) {
            if (i)
                emits(d, ", ");
            d->expanding = pack;
            d->expand_i = i;
            print(d, n->a);
        }
        d->expanding = save;
        d->expand_i = save_i;
        break;
    }
    case K_PACK:
        if (n == d->expanding) {
            print_left(d, element(d, n));
            break;
        }
        if (n->flag)
            emits(d, "[");
        print_list(d, n->a);
        if (n->flag)
            emits(d, "]");
        break;
    case K_CLONE:
        print(d, n->a);
        emits(d, " [clone ");
        emit(d, n->s, n->len);
        emits(d, "]");
        break;
    case K_CTOR:
        if (n->flag)
            emits(d, "~");
        print(d, n->a->kind == K_NESTED && n->a->flag == 1 ? n->a->b : n->a);
        break;
    case K_CONV:
        emits(d, "operator ");
        print(d, n->a);
        break;
    case K_LAMBDA:
        emits(d, "{lambda(");
        print_list(d, n->a);
        emits(d, ")#");
        emit_uint(d, n->num);
        emits(d, "}");
        break;
    case K_UNNAMED:
        emits(d, n->flag ? "{default arg#" : "{unnamed type#");
        emit_uint(d, n->num);
        emits(d, "}");
        break;
    default:
        d->failed |= 1;
    }
    d->depth--;
}

static void print_right(struct dm *d, const struct node *n)
{
    if (d->failed & 2)
        return;
    if (!n || d->depth++ > 4 * MAX_DEPTH || (d->failed & 1) || ++d->steps > MAX_PRINT_STEPS) {
        d->failed |= 1;
        return;
    }
    switch (n->kind) {
    case K_PACK:
        if (n == d->expanding)
            print_right(d, element(d, n));
        break;
    case K_QUAL:
        print_right(d, n->a);
        if (is_func(d, n))
            print_cv(d, n->cv);
        break;
    case K_VENDOR_Q:
        print_right(d, n->a);
        break;
    case K_POINTER:
    case K_LREF:
    case K_RREF: {
        const struct node *in = through_pack(d, n->a);
        if (n->kind != K_POINTER && in && (in->kind == K_LREF || in->kind == K_RREF)) {
            print_right(d, in);
            break;
        }
        if (wants_parens(d, n->a))
            emits(d, ")");
        print_right(d, n->a);
        break;
    }
    case K_PTRMEM:
        if (wants_parens(d, n->b))
            emits(d, ")");
        print_right(d, n->b);
        break;
    case K_FUNC:
        emits(d, "(");
        print_list(d, n->b);
        emits(d, ")");
        print_ref(d, n->ref);
        print_right(d, n->a);
        break;
    case K_ARRAY:
        emits(d, d->pos && d->out[d->pos - 1] == ']' ? "[" : " [");
        emit(d, n->s, n->len);
        emits(d, "]");
        print_right(d, n->a);
        break;
    default:
        break;
    }
    d->depth--;
}

static void print(struct dm *d, const struct node *n)
{
    print_left(d, n);
    print_right(d, n);
}

/* The parser's and printer's state (24 KiB) is static, one user at a time. */
static struct dm state;
static int state_busy;

int rt_demangle(const char *name, char *out, size_t cap)
{
    if (!name || strncmp(name, "_Z", 2) != 0 || cap == 0)
        return 0;
    while (__atomic_exchange_n(&state_busy, 1, __ATOMIC_ACQUIRE))
        ;
    struct dm *d = &state;
    /* A symbol version (..@@GLIBCXX_3.4.22) is kept, after the name. */
    const char *at = strchr(name, '@');
    d->p = name + 2;
    d->end = at ? at : name + strlen(name);
    d->failed = d->depth = d->in_type = d->in_local = 0;
    d->nnodes = d->nsubs = 0;
    d->tparams = NULL;
    d->expanding = NULL;
    struct node *n = dm_parse_clones(d, dm_parse_encoding(d));
    int ok = n && !d->failed && d->p == d->end;
    if (ok) {
        size_t v = at ? strlen(at) : 0;
        d->out = out;
        d->cap = cap > v + 1 ? cap - v : cap;
        d->pos = 0;
        d->depth = 0;
        d->steps = 0;
        print(d, n);
        ok = !(d->failed & 1) && (d->pos > 0 || (d->failed & 2));
        if (ok && at && d->pos + v < cap) {
            memcpy(out + d->pos, at, v);
            d->pos += v;
        }
        out[ok ? d->pos : 0] = 0;
    }
    __atomic_store_n(&state_busy, 0, __ATOMIC_RELEASE);
    return ok;
}
