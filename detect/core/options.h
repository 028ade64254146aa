/* Runtime options, parsed strictly from RTDD_OPTIONS (and `rtdd run --key=value`). */
#ifndef RTDD_OPTIONS_H
#define RTDD_OPTIONS_H
#include "core/rt_fmt.h"

#define RT_OPT_STRING_MAX 512

#define RT_OPT_FIELD_BOOL(k) int k;
#define RT_OPT_FIELD_INT(k) long k;
#define RT_OPT_FIELD_STRING(k) char k[RT_OPT_STRING_MAX];
#define RT_OPT_FIELD_ENUM(k) int k; /* index into the values list */
struct rt_options {
#define RT_OPT(key, type, def, min, max, vals, help) RT_OPT_FIELD_##type(key)
#include "core/options.def"
#undef RT_OPT
};

enum rt_opt_type { RT_OPT_BOOL, RT_OPT_INT, RT_OPT_STRING, RT_OPT_ENUM };
struct rt_option_info {
    const char *key;
    enum rt_opt_type type;
    const char *def, *values, *help;
    long min, max;
};
extern const struct rt_option_info rt_option_table[];
extern const unsigned rt_option_count;

/* Values of the enum options, as indices. */
enum { RT_FORMAT_TEXT = 0, RT_FORMAT_JSON = 1 };
enum { RT_CLASSES_AUTO = 0, RT_CLASSES_INSTANCE = 1, RT_CLASSES_SITE = 2 };
enum { RT_RULE_FEASIBLE = 0, RT_RULE_LOCKDEP = 1 };
enum { RT_HANG_INFO = 0, RT_HANG_WARNING = 1 };
enum { RT_DEREF_UPDATERS = 0, RT_DEREF_LOCKDEP = 1 };

void rt_options_defaults(struct rt_options *o);
/* "k=v:k=v" (',' also separates). On error returns -1 and writes a message
 * naming the bad key or value and listing the valid keys into err. */
int rt_options_parse(struct rt_options *o, const char *text, struct rt_buf *err);
int rt_option_set(struct rt_options *o, const char *key, size_t keylen, const char *val, size_t vallen,
                  struct rt_buf *err);
const struct rt_option_info *rt_option_find(const char *key, size_t keylen);
#endif
