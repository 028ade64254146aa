/* The demangler's parser, types and template arguments: builtin,
 * qualified, pointer, reference, function, array, pointer-to-member and
 * class types, pack expansions, literals. Names: demangle_names.c. */
#include "report/demangle_internal.h"


static struct node *parse_literal(struct dm *d)
{
    d->p++; /* L */
    if (look(d, 0) == '_' && look(d, 1) == 'Z') { /* an entity's address */
        d->p += 2;
        struct node *e = dm_parse_encoding(d);
        return e && eat(d, 'E') ? e : fail(d);
    }
    if (eat(d, 'Z')) { /* GCC before 4.x wrote L Z <encoding> E */
        struct node *e = dm_parse_encoding(d);
        return e && eat(d, 'E') ? e : fail(d);
    }
    d->in_type++;
    struct node *t = dm_parse_type(d);
    d->in_type--;
    if (!t)
        return NULL;
    const char *s = d->p;
    int neg = eat(d, 'n');
    while (look(d, 0) && look(d, 0) != 'E')
        d->p++;
    unsigned len = (unsigned)(d->p - s) - (unsigned)neg;
    if (!eat(d, 'E'))
        return fail(d);
    if (t->kind == K_BUILTIN && !strcmp(t->s, "decltype(nullptr)") && len == 0)
        return mk_str(d, K_NAME, "nullptr");
    if (len == 0)
        return fail(d);
    struct node *n = mk(d, K_LITERAL, t, NULL);
    if (n) {
        n->s = s + neg;
        n->len = len;
        n->flag = (unsigned char)neg;
    }
    return n;
}

/* X <expression> E: the forms that name a value simply. */
static struct node *parse_expression(struct dm *d)
{
    int c = look(d, 0);
    if (c == 'T')
        return dm_parse_template_param(d);
    if (c == 'L')
        return parse_literal(d);
    return fail(d); /* operators, calls, dependent names: the mangled name is printed */
}

static struct node *parse_template_arg(struct dm *d)
{
    int c = look(d, 0);
    if (c == 'L')
        return parse_literal(d);
    if (c == 'X') {
        d->p++;
        struct node *e = parse_expression(d);
        return e && eat(d, 'E') ? e : fail(d);
    }
    if (c == 'J') { /* an argument pack */
        d->p++;
        struct node *list = NULL, **tail = &list;
        while (!d->failed && !eat(d, 'E')) {
            if (!append(d, &tail, parse_template_arg(d)))
                return fail(d);
        }
        return mk(d, K_PACK, list, NULL);
    }
    return dm_parse_type(d);
}

struct node *dm_parse_template_args(struct dm *d)
{
    if (!eat(d, 'I'))
        return fail(d);
    d->in_type++;
    struct node *list = NULL, **tail = &list;
    while (!d->failed && !eat(d, 'E')) {
        if (!look(d, 0))
            return fail(d);
        if (!append(d, &tail, parse_template_arg(d)))
            return fail(d);
    }
    d->in_type--;
    return list;
}

static const struct { char c; const char *name; } builtins[] = {
    {'v', "void"}, {'w', "wchar_t"}, {'b', "bool"}, {'c', "char"}, {'a', "signed char"},
    {'h', "unsigned char"}, {'s', "short"}, {'t', "unsigned short"}, {'i', "int"},
    {'j', "unsigned int"}, {'l', "long"}, {'m', "unsigned long"}, {'x', "long long"},
    {'y', "unsigned long long"}, {'n', "__int128"}, {'o', "unsigned __int128"}, {'f', "float"},
    {'d', "double"}, {'e', "long double"}, {'g', "__float128"}, {'z', "..."},
};

static const struct { char c; const char *name; } d_builtins[] = {
    {'d', "decimal64"}, {'e', "decimal128"}, {'f', "decimal32"}, {'h', "half"}, {'i', "char32_t"},
    {'s', "char16_t"}, {'u', "char8_t"}, {'a', "auto"}, {'c', "decltype(auto)"}, {'n', "decltype(nullptr)"},
};

/* F [Y] <return type> <parameter types> [<ref-qualifier>] E */
struct node *dm_parse_function_type(struct dm *d)
{
    d->p++; /* F */
    eat(d, 'Y');
    struct node *ret = dm_parse_type(d);
    struct node *params = NULL, **tail = &params;
    unsigned char ref = 0;
    while (!d->failed) {
        if (eat(d, 'E'))
            break;
        if ((look(d, 0) == 'R' || look(d, 0) == 'O') && look(d, 1) == 'E') {
            ref = look(d, 0) == 'R' ? 1 : 2;
            d->p += 2;
            break;
        }
        if (!look(d, 0))
            return fail(d);
        if (!append(d, &tail, dm_parse_type(d)))
            return fail(d);
    }
    if (params && !params->next && params->kind == K_BUILTIN && !strcmp(params->s, "void"))
        params = NULL;
    struct node *f = ret ? mk(d, K_FUNC, ret, params) : NULL;
    if (f)
        f->ref = ref;
    return f;
}

static struct node *parse_type_inner(struct dm *d)
{
    int c = look(d, 0);
    struct node *n;
    for (unsigned i = 0; i < sizeof builtins / sizeof builtins[0]; i++)
        if (c == builtins[i].c) {
            d->p++;
            return mk_str(d, K_BUILTIN, builtins[i].name);
        }
    switch (c) {
    case 'u': /* a vendor's type */
        d->p++;
        n = dm_parse_source_name(d);
        add_sub(d, n);
        return n;
    case 'D': {
        int c1 = look(d, 1);
        for (unsigned i = 0; i < sizeof d_builtins / sizeof d_builtins[0]; i++)
            if (c1 == d_builtins[i].c) {
                d->p += 2;
                return mk_str(d, K_BUILTIN, d_builtins[i].name);
            }
        if (c1 == 'F') { /* DF <number> _: _FloatN */
            d->p += 2;
            const char *s = d->p;
            if (parse_number(d, NULL) < 0)
                return fail(d);
            unsigned len = (unsigned)(d->p - s);
            if (!eat(d, '_'))
                return fail(d);
            struct node *f = mk_str(d, K_NAME, "_Float");
            struct node *num = mk_text(d, K_NAME, s, len);
            n = mk(d, K_NESTED, f, num);
            if (n)
                n->flag = 2; /* printed joined: _Float16 */
            return n;
        }
        if (c1 == 'p') { /* a pack expansion */
            d->p += 2;
            n = mk(d, K_EXPAND, dm_parse_type(d), NULL);
            if (n && !n->a)
                return fail(d);
            add_sub(d, n);
            return n;
        }
        if (c1 == 'o' || c1 == 'O' || c1 == 'w' || c1 == 'x') { /* exception specs */
            if (c1 == 'o' || c1 == 'x')
                d->p += 2;
            else
                return fail(d);
            return look(d, 0) == 'F' ? dm_parse_type(d) : fail(d);
        }
        return fail(d);
    }
    case 'r':
    case 'V':
    case 'K': {
        unsigned char cv = 0;
        for (;;) {
            if (eat(d, 'r'))
                cv |= CV_RESTRICT;
            else if (eat(d, 'V'))
                cv |= CV_VOLATILE;
            else if (eat(d, 'K'))
                cv |= CV_CONST;
            else
                break;
        }
        /* A qualified function type (a const member function's) is one
         * substitution candidate, not two. */
        n = mk(d, K_QUAL, look(d, 0) == 'F' ? dm_parse_function_type(d) : dm_parse_type(d), NULL);
        if (!n || !n->a)
            return fail(d);
        n->cv = cv;
        add_sub(d, n);
        return n;
    }
    case 'U': { /* a vendor qualifier: U <source-name> <type> */
        d->p++;
        struct node *q = dm_parse_source_name(d);
        n = q ? mk(d, K_VENDOR_Q, dm_parse_type(d), NULL) : NULL;
        if (!n || !n->a)
            return fail(d);
        n->s = q->s;
        n->len = q->len;
        add_sub(d, n);
        return n;
    }
    case 'P':
    case 'R':
    case 'O':
    case 'C':
    case 'G': {
        d->p++;
        struct node *t = dm_parse_type(d);
        if (!t)
            return fail(d);
        if (c == 'C' || c == 'G') {
            n = mk(d, K_VENDOR_Q, t, NULL);
            if (n)
                n->s = c == 'C' ? "_Complex" : "_Imaginary", n->len = (unsigned)strlen(n->s);
        } else {
            n = mk(d, c == 'P' ? K_POINTER : c == 'R' ? K_LREF : K_RREF, t, NULL);
        }
        add_sub(d, n);
        return n;
    }
    case 'F':
        n = dm_parse_function_type(d);
        add_sub(d, n);
        return n;
    case 'A': { /* A <dimension> _ <element type> */
        d->p++;
        const char *s = d->p;
        while (look(d, 0) >= '0' && look(d, 0) <= '9')
            d->p++;
        unsigned len = (unsigned)(d->p - s);
        if (!eat(d, '_'))
            return fail(d);
        n = mk(d, K_ARRAY, dm_parse_type(d), NULL);
        if (!n || !n->a)
            return fail(d);
        n->s = s;
        n->len = len;
        add_sub(d, n);
        return n;
    }
    case 'M': { /* M <class type> <member type> */
        d->p++;
        struct node *cls = dm_parse_type(d);
        struct node *mem = cls ? dm_parse_type(d) : NULL;
        n = mem ? mk(d, K_PTRMEM, cls, mem) : fail(d);
        add_sub(d, n);
        return n;
    }
    case 'T':
        n = dm_parse_template_param(d);
        add_sub(d, n);
        if (n && look(d, 0) == 'I') { /* a template template parameter's use */
            struct node *args = dm_parse_template_args(d);
            n = args ? mk(d, K_TEMPLATE, n, args) : fail(d);
            add_sub(d, n);
        }
        return n;
    case 'S':
        if (look(d, 1) != 't') {
            n = dm_parse_substitution(d);
            if (n && look(d, 0) == 'I') {
                struct node *args = dm_parse_template_args(d);
                n = args ? mk(d, K_TEMPLATE, n, args) : fail(d);
                add_sub(d, n);
            }
            return n;
        }
        /* St <unqualified-name>, a class type: */
        __attribute__((fallthrough));
    case 'N':
    case 'Z':
    case '0': case '1': case '2': case '3': case '4':
    case '5': case '6': case '7': case '8': case '9':
        n = dm_parse_name(d, NULL, NULL);
        add_sub(d, n);
        return n;
    default:
        return fail(d);
    }
}

struct node *dm_parse_type(struct dm *d)
{
    if (d->failed || d->depth++ > MAX_DEPTH)
        return fail(d);
    d->in_type++;
    struct node *n = parse_type_inner(d);
    d->in_type--;
    d->depth--;
    return n && !d->failed ? n : fail(d);
}
