/* Help text for a report kind, for SARIF rules and the HTML page: the
 * kind's page docs/kinds/KIND.md when it can be found at analysis time
 * (so the help follows the docs without a rebuild), otherwise the kind's
 * headline and title from detect/report/kinds.def. */
#ifndef AZ_KINDDOC_H
#define AZ_KINDDOC_H

/* malloc'ed Markdown text; never NULL. from_page says where it came from. */
char *az_kind_help(int kind, const char *docs_dir, int *from_page);
#endif
