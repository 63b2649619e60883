/* mdc_pr_int.h - small helpers the persistent-resource and pipeline
 * modules of lib share (defined in mdc_pr_int.c); not for front ends.
 * (owner: pr) */
#ifndef MDC_PR_INT_H
#define MDC_PR_INT_H

#include <stdbool.h>
#include <stdint.h>

/* printf into a new string (malloc'ed; NULL on ENOMEM) */
char *mdc_pr_strdupf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* S is one of the NULL-terminated SET */
bool mdc_pr_in(const char *s, const char *const *set);
/* Strict decimal integer in [MIN, MAX]. */
bool mdc_pr_parse_int(const char *s, int64_t min, int64_t max, int64_t *v);

#endif
