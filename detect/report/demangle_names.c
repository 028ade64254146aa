/* The demangler's parser, names and encodings: <encoding>, <name>,
 * <nested-name>, <local-name>, <unqualified-name>, substitutions, template
 * parameters, special names (vtables, thunks, guards) and GCC's clone
 * suffixes. Types and template arguments: demangle_types.c. */
#include "report/demangle_internal.h"

/* <seq-id> _: base 36 with digits then upper-case letters; "_" alone is 0. */
static long parse_seq_id(struct dm *d)
{
    if (eat(d, '_'))
        return 0;
    long v = 0;
    for (;;) {
        int c = look(d, 0);
        if (c >= '0' && c <= '9')
            v = v * 36 + (c - '0');
        else if (c >= 'A' && c <= 'Z')
            v = v * 36 + (c - 'A' + 10);
        else
            break;
        if (v > 1000000)
            return -1;
        d->p++;
    }
    return eat(d, '_') ? v + 1 : -1;
}

/* <discriminator> ::= _ <digit> | __ <number> _ (not printed) */
static void skip_discriminator(struct dm *d)
{
    if (look(d, 0) != '_')
        return;
    if (look(d, 1) >= '0' && look(d, 1) <= '9') {
        d->p += 2;
    } else if (look(d, 1) == '_') {
        const char *save = d->p;
        d->p += 2;
        if (parse_number(d, NULL) < 0 || !eat(d, '_'))
            d->p = save;
    }
}

/* ---- names ---- */

struct node *dm_parse_source_name(struct dm *d)
{
    long n = parse_number(d, NULL);
    if (n <= 0 || n > d->end - d->p)
        return fail(d);
    const char *s = d->p;
    d->p += n;
    if (n >= 10 && !strncmp(s, "_GLOBAL_", 8) && (s[8] == '.' || s[8] == '_' || s[8] == '$') && s[9] == 'N')
        return mk_str(d, K_NAME, "(anonymous namespace)");
    return mk_text(d, K_NAME, s, (unsigned)n);
}

static const struct { char code[3]; const char *name; } operators[] = {
    {"nw", "new"}, {"na", "new[]"}, {"dl", "delete"}, {"da", "delete[]"}, {"aw", "co_await"},
    {"ps", "+"}, {"ng", "-"}, {"ad", "&"}, {"de", "*"}, {"co", "~"}, {"pl", "+"}, {"mi", "-"},
    {"ml", "*"}, {"dv", "/"}, {"rm", "%"}, {"an", "&"}, {"or", "|"}, {"eo", "^"}, {"aS", "="},
    {"pL", "+="}, {"mI", "-="}, {"mL", "*="}, {"dV", "/="}, {"rM", "%="}, {"aN", "&="},
    {"oR", "|="}, {"eO", "^="}, {"ls", "<<"}, {"rs", ">>"}, {"lS", "<<="}, {"rS", ">>="},
    {"eq", "=="}, {"ne", "!="}, {"lt", "<"}, {"gt", ">"}, {"le", "<="}, {"ge", ">="},
    {"ss", "<=>"}, {"nt", "!"}, {"aa", "&&"}, {"oo", "||"}, {"pp", "++"}, {"mm", "--"},
    {"cm", ","}, {"pm", "->*"}, {"pt", "->"}, {"cl", "()"}, {"ix", "[]"}, {"qu", "?"},
};

static struct node *parse_operator(struct dm *d)
{
    int c0 = look(d, 0), c1 = look(d, 1);
    if (c0 == 'c' && c1 == 'v') { /* a conversion: operator int */
        d->p += 2;
        d->in_type++;
        struct node *t = dm_parse_type(d);
        d->in_type--;
        return t ? mk(d, K_CONV, t, NULL) : fail(d);
    }
    if (c0 == 'l' && c1 == 'i') { /* a literal operator: operator"" _km */
        d->p += 2;
        struct node *n = dm_parse_source_name(d);
        struct node *o = n ? mk_str(d, K_OPERATOR, "\"\" ") : NULL;
        return o ? mk(d, K_NESTED, o, n) : fail(d);
    }
    if (c0 == 'v' && c1 >= '0' && c1 <= '9') { /* a vendor's operator */
        d->p += 2;
        struct node *n = dm_parse_source_name(d);
        struct node *o = n ? mk_str(d, K_OPERATOR, " ") : NULL;
        return o ? mk(d, K_NESTED, o, n) : fail(d);
    }
    for (unsigned i = 0; i < sizeof operators / sizeof operators[0]; i++)
        if (operators[i].code[0] == c0 && operators[i].code[1] == c1) {
            d->p += 2;
            return mk_str(d, K_OPERATOR, operators[i].name);
        }
    return fail(d);
}

/* Ut [<number>] _ and Ul <lambda-sig> E [<number>] _ */
static struct node *parse_unnamed(struct dm *d)
{
    d->p++; /* U */
    int lambda = eat(d, 'l');
    if (!lambda && !eat(d, 't'))
        return fail(d);
    struct node *params = NULL, **tail = &params;
    if (lambda) {
        d->in_type++;
        while (!d->failed && look(d, 0) != 'E') {
            if (!append(d, &tail, dm_parse_type(d)))
                return fail(d);
        }
        d->in_type--;
        if (!eat(d, 'E'))
            return fail(d);
        if (params && !params->next && params->kind == K_BUILTIN && !strcmp(params->s, "void"))
            params = NULL;
    }
    long n = look(d, 0) == '_' ? -1 : parse_number(d, NULL);
    if (!eat(d, '_') || n < -1)
        return fail(d);
    struct node *u = mk(d, lambda ? K_LAMBDA : K_UNNAMED, params, NULL);
    if (u)
        u->num = (unsigned)(n + 2);
    return u;
}

static struct node *parse_abi_tags(struct dm *d, struct node *n)
{
    while (n && look(d, 0) == 'B') {
        d->p++;
        struct node *tag = dm_parse_source_name(d);
        if (!tag)
            return NULL;
        n = mk(d, K_ABI, n, NULL);
        if (n) {
            n->s = tag->s;
            n->len = tag->len;
        }
    }
    return n;
}

/* The name a constructor of prefix bears: the class's own, without its
 * template arguments or namespace. */
static struct node *base_name(struct node *n)
{
    for (int i = 0; n && i < MAX_DEPTH; i++) {
        if (n->kind == K_NESTED || n->kind == K_LOCAL)
            n = n->b;
        else if (n->kind == K_TEMPLATE || n->kind == K_ABI)
            n = n->a;
        else
            return n;
    }
    return NULL;
}

/* <unqualified-name>; prefix (or NULL) names the class of a ctor/dtor. */
static struct node *parse_unqualified(struct dm *d, struct node *prefix)
{
    int c = look(d, 0);
    struct node *n;
    if (c >= '0' && c <= '9') {
        n = dm_parse_source_name(d);
    } else if (c == 'C' || (c == 'D' && look(d, 1) >= '0' && look(d, 1) <= '9')) {
        struct node *base = base_name(prefix);
        if (!base)
            return fail(d);
        int inheriting = c == 'C' && look(d, 1) == 'I';
        d->p += inheriting ? 2 : 1;
        if (look(d, 0) < '0' || look(d, 0) > '5')
            return fail(d);
        d->p++;
        if (inheriting) { /* CI1 <base class type>: the type is not printed */
            d->in_type++;
            struct node *t = dm_parse_type(d);
            d->in_type--;
            if (!t)
                return NULL;
        }
        n = mk(d, K_CTOR, base, NULL);
        if (n)
            n->flag = c == 'D';
    } else if (c == 'U') {
        n = parse_unnamed(d);
    } else if (c == 'L') { /* an internal-linkage name (GCC) */
        d->p++;
        n = dm_parse_source_name(d);
        skip_discriminator(d);
    } else if (c == 'D' && look(d, 1) == 'C') { /* a structured binding: [a, b] */
        d->p += 2;
        struct node *list = NULL, **tail = &list;
        while (!d->failed && !eat(d, 'E')) {
            if (!append(d, &tail, dm_parse_source_name(d)))
                return fail(d);
        }
        n = mk(d, K_PACK, list, NULL);
        if (n)
            n->flag = 1; /* printed in brackets */
    } else if (c >= 'a' && c <= 'z') {
        n = parse_operator(d);
    } else {
        return fail(d);
    }
    return parse_abi_tags(d, n);
}

/* <substitution> ::= S_ | S <seq-id> _ | St | Sa | Sb | Ss | Si | So | Sd */
struct node *dm_parse_substitution(struct dm *d)
{
    static const struct { char c; const char *name, *base; } std_abbrev[] = {
        {'a', "std::allocator", "allocator"},
        {'b', "std::basic_string", "basic_string"},
        {'s', "std::basic_string<char, std::char_traits<char>, std::allocator<char> >", "basic_string"},
        {'i', "std::basic_istream<char, std::char_traits<char> >", "basic_istream"},
        {'o', "std::basic_ostream<char, std::char_traits<char> >", "basic_ostream"},
        {'d', "std::basic_iostream<char, std::char_traits<char> >", "basic_iostream"},
    };
    d->p++; /* S */
    for (unsigned i = 0; i < sizeof std_abbrev / sizeof std_abbrev[0]; i++)
        if (eat(d, std_abbrev[i].c)) {
            /* A ctor of std::string is basic_string(): keep the base name apart. */
            struct node *full = mk_str(d, K_NAME, std_abbrev[i].name);
            struct node *base = mk_str(d, K_NAME, std_abbrev[i].base);
            struct node *n = mk(d, K_NESTED, full, base);
            if (n)
                n->flag = 1; /* printed as a alone */
            return n;
        }
    long i = parse_seq_id(d);
    if (i < 0 || (unsigned long)i >= d->nsubs)
        return fail(d);
    return d->subs[i];
}

/* T_ | T <number> _ : the encoding's template argument. */
struct node *dm_parse_template_param(struct dm *d)
{
    d->p++; /* T */
    long k = 0;
    if (!eat(d, '_')) {
        long i = parse_number(d, NULL);
        if (i < 0 || !eat(d, '_'))
            return fail(d);
        k = i + 1;
    }
    struct node *arg = d->tparams;
    for (long j = 0; arg && j < k; j++)
        arg = arg->next;
    return arg ? arg : fail(d);
}

/* Template arguments of a name: when they are the encoding's own (not inside
 * a type), they are what T_ refers to in the function's signature. */
static struct node *apply_template_args(struct dm *d, struct node *name)
{
    struct node *args = dm_parse_template_args(d);
    if (!args && d->failed)
        return NULL;
    if (!d->in_type)
        d->tparams = args;
    return mk(d, K_TEMPLATE, name, args);
}

/* N [<CV-qualifiers>] [<ref-qualifier>] <prefix> <unqualified-name> E */
static struct node *parse_nested(struct dm *d, struct node **quals, int *is_template)
{
    d->p++; /* N */
    unsigned char cv = 0, ref = 0;
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
    if (eat(d, 'R'))
        ref = 1;
    else if (eat(d, 'O'))
        ref = 2;
    struct node *cur = NULL;
    int last_template = 0;
    while (!d->failed && !eat(d, 'E')) {
        int c = look(d, 0);
        struct node *comp;
        last_template = 0;
        if (c == 0)
            return fail(d);
        if (c == 'I') {
            if (!cur)
                return fail(d);
            cur = apply_template_args(d, cur);
            last_template = 1;
            if (look(d, 0) != 'E')
                add_sub(d, cur);
            continue;
        }
        if (c == 'S' && look(d, 1) == 't') {
            if (cur)
                return fail(d);
            d->p += 2;
            struct node *std = mk_str(d, K_NAME, "std");
            comp = parse_unqualified(d, NULL);
            cur = comp ? mk(d, K_NESTED, std, comp) : NULL;
        } else if (c == 'S') {
            if (cur)
                return fail(d);
            cur = dm_parse_substitution(d);
            continue; /* a substitution is not a new candidate */
        } else if (c == 'T') {
            if (cur)
                return fail(d);
            cur = dm_parse_template_param(d);
        } else if (c == 'M') { /* a closure's data-member prefix: nothing printed */
            d->p++;
            continue;
        } else {
            comp = parse_unqualified(d, cur);
            cur = cur ? mk(d, K_NESTED, cur, comp) : comp;
        }
        if (!cur)
            return fail(d);
        if (look(d, 0) != 'E')
            add_sub(d, cur);
    }
    if (!cur)
        return fail(d);
    if (is_template) {
        struct node *b = last_template ? base_name(cur) : NULL;
        *is_template = b && b->kind != K_CTOR && b->kind != K_CONV;
    }
    if (quals) {
        struct node *q = mk(d, K_QUAL, NULL, NULL);
        if (q) {
            q->cv = cv;
            q->ref = ref;
        }
        *quals = q;
    }
    return cur;
}

/* Z <encoding> E <entity name> [<discriminator>] | Z <encoding> E s [<discriminator>] */
static struct node *parse_local(struct dm *d, int *is_template, struct node **quals)
{
    d->p++; /* Z */
    struct node *tparams = d->tparams;
    struct node *enc = dm_parse_encoding(d);
    if (!enc || !eat(d, 'E'))
        return fail(d);
    struct node *entity;
    if (eat(d, 's')) {
        entity = mk_str(d, K_NAME, "string literal");
    } else {
        long arg = -1;
        if (eat(d, 'd')) { /* a default argument's entity: Ed [<number>] _ */
            arg = look(d, 0) == '_' ? 0 : parse_number(d, NULL) + 1;
            if (arg < 0 || !eat(d, '_'))
                return fail(d);
        }
        d->tparams = tparams;
        entity = dm_parse_name(d, is_template, quals);
        if (entity && arg >= 0) {
            struct node *da = mk(d, K_UNNAMED, NULL, NULL);
            if (da) {
                da->num = (unsigned)arg + 1;
                da->flag = 1; /* {default arg#N} */
            }
            entity = mk(d, K_NESTED, da, entity);
        }
    }
    skip_discriminator(d);
    return entity ? mk(d, K_LOCAL, enc, entity) : fail(d);
}

/* quals (or NULL) receives a member function's qualifiers, N K ... E. */
struct node *dm_parse_name(struct dm *d, int *is_template, struct node **quals)
{
    if (d->depth++ > MAX_DEPTH)
        return fail(d);
    struct node *n = NULL;
    if (is_template)
        *is_template = 0;
    int c = look(d, 0);
    if (c == 'N') {
        n = parse_nested(d, quals, is_template);
    } else if (c == 'Z') {
        n = parse_local(d, is_template, quals);
    } else if (c == 'S' && look(d, 1) != 't') {
        n = dm_parse_substitution(d); /* must name a template: <unscoped-template-name> */
        if (n && look(d, 0) == 'I') {
            n = apply_template_args(d, n);
            if (is_template)
                *is_template = 1;
        } else {
            n = fail(d);
        }
    } else {
        int std = c == 'S';
        if (std)
            d->p += 2;
        n = parse_unqualified(d, NULL);
        if (n && std)
            n = mk(d, K_NESTED, mk_str(d, K_NAME, "std"), n);
        if (n && look(d, 0) == 'I') {
            add_sub(d, n);
            struct node *b = base_name(n);
            n = apply_template_args(d, n);
            if (is_template)
                *is_template = b && b->kind != K_CONV;
        }
    }
    d->depth--;
    return n;
}

/* ---- encodings ---- */

/* <call-offset> ::= h <number> _ | v <number> _ <number> _ (not printed) */
static int parse_call_offset(struct dm *d)
{
    int neg;
    if (eat(d, 'h'))
        return parse_number(d, &neg) >= 0 && eat(d, '_');
    if (eat(d, 'v'))
        return parse_number(d, &neg) >= 0 && eat(d, '_') && parse_number(d, &neg) >= 0 && eat(d, '_');
    return 0;
}

static struct node *parse_special(struct dm *d)
{
    static const struct { char code[3]; const char *text; int what; /* 0 type, 1 name, 2 encoding */ } specials[] = {
        {"TV", "vtable for ", 0}, {"TT", "VTT for ", 0}, {"TI", "typeinfo for ", 0},
        {"TS", "typeinfo name for ", 0}, {"TW", "TLS wrapper function for ", 1},
        {"TH", "TLS init function for ", 1}, {"GV", "guard variable for ", 1},
    };
    int c0 = look(d, 0), c1 = look(d, 1);
    for (unsigned i = 0; i < sizeof specials / sizeof specials[0]; i++)
        if (specials[i].code[0] == c0 && specials[i].code[1] == c1) {
            d->p += 2;
            struct node *x = specials[i].what == 0 ? dm_parse_type(d) : dm_parse_name(d, NULL, NULL);
            struct node *n = x ? mk_str(d, K_SPECIAL, specials[i].text) : NULL;
            if (n)
                n->a = x;
            return n;
        }
    const char *text = NULL;
    if (c0 == 'T' && (c1 == 'h' || c1 == 'v')) {
        d->p++;
        if (!parse_call_offset(d))
            return fail(d);
        text = c1 == 'h' ? "non-virtual thunk to " : "virtual thunk to ";
    } else if (c0 == 'T' && c1 == 'c') {
        d->p += 2;
        if (!parse_call_offset(d) || !parse_call_offset(d))
            return fail(d);
        text = "covariant return thunk to ";
    } else if (c0 == 'G' && c1 == 'T' && (look(d, 2) == 't' || look(d, 2) == 'n')) {
        d->p += 3;
        text = "transaction clone for ";
    } else if (c0 == 'G' && c1 == 'R') { /* GR <name> [<seq-id>] _ */
        d->p += 2;
        struct node *x = dm_parse_name(d, NULL, NULL);
        if (!x)
            return NULL;
        long seq = parse_seq_id(d);
        if (seq < 0)
            return fail(d);
        struct node *n = mk_str(d, K_SPECIAL, "reference temporary #");
        if (n) {
            n->a = x;
            n->num = (unsigned)seq;
            n->flag = 1;
        }
        return n;
    } else {
        return fail(d);
    }
    struct node *e = dm_parse_encoding(d);
    struct node *n = e ? mk_str(d, K_SPECIAL, text) : NULL;
    if (n)
        n->a = e;
    return n;
}

/* <encoding> ::= <name> <bare-function-type> | <name> | <special-name> */
struct node *dm_parse_encoding(struct dm *d)
{
    if (d->depth++ > MAX_DEPTH)
        return fail(d);
    int c = look(d, 0);
    struct node *n;
    if ((c == 'T' && look(d, 1) != '_' && !(look(d, 1) >= '0' && look(d, 1) <= '9')) ||
        (c == 'G' && (look(d, 1) == 'V' || look(d, 1) == 'R' || look(d, 1) == 'T'))) {
        n = parse_special(d);
        d->depth--;
        return n;
    }
    int is_template = 0;
    struct node *quals = NULL;
    struct node *name;
    name = dm_parse_name(d, &is_template, &quals);
    if (!name) {
        d->depth--;
        return fail(d);
    }
    c = look(d, 0);
    if (c == 0 || c == 'E' || c == '.') { /* data: no parameters */
        d->depth--;
        return name;
    }
    struct node *ret = NULL;
    if (is_template) {
        ret = dm_parse_type(d);
        if (!ret)
            return fail(d);
    }
    struct node *params = NULL, **tail = &params;
    while (!d->failed && look(d, 0) && look(d, 0) != 'E' && look(d, 0) != '.') {
        if (!append(d, &tail, dm_parse_type(d)))
            return fail(d);
    }
    if (!params)
        return fail(d);
    if (!params->next && params->kind == K_BUILTIN && !strcmp(params->s, "void"))
        params = NULL;
    n = mk(d, K_ENCODING, name, params);
    if (n) {
        n->c = ret;
        n->cv = quals ? quals->cv : 0;
        n->ref = quals ? quals->ref : 0;
    }
    d->depth--;
    return n;
}

/* GCC's clones: .isra.0, .constprop.1, .part.0, .cold, each [clone ...]. */
struct node *dm_parse_clones(struct dm *d, struct node *n)
{
    while (n && look(d, 0) == '.') {
        int c = look(d, 1);
        if (!((c >= 'a' && c <= 'z') || c == '_'))
            return fail(d);
        const char *s = d->p++;
        while ((look(d, 0) >= 'a' && look(d, 0) <= 'z') || look(d, 0) == '_')
            d->p++;
        while (look(d, 0) == '.' && look(d, 1) >= '0' && look(d, 1) <= '9') {
            d->p++;
            while (look(d, 0) >= '0' && look(d, 0) <= '9')
                d->p++;
        }
        n = mk(d, K_CLONE, n, NULL);
        if (n) {
            n->s = s;
            n->len = (unsigned)(d->p - s);
        }
    }
    return n;
}
