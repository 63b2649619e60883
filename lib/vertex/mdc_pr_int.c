/* mdc_pr_int.c - the small helpers the persistent-resource and pipeline
 * modules share (mdc_pr_int.h).  Their own file, below mdc_pr.c and
 * mdc_pr_yaml.c, so that neither includes the other's header to reach
 * them (issue 27 item 6: that made mdc_pr <-> mdc_pr_yaml a circle). */
#include "config.h"
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mdc_pr_int.h"

char *mdc_pr_strdupf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !(s = malloc((size_t) n + 1)))
		return NULL;
	va_start(ap, fmt);
	vsnprintf(s, (size_t) n + 1, fmt, ap);
	va_end(ap);
	return s;
}

bool mdc_pr_in(const char *s, const char *const *set)
{
	for (; *set; set++)
		if (!strcmp(s, *set))
			return true;
	return false;
}

bool mdc_pr_parse_int(const char *s, int64_t min, int64_t max, int64_t *v)
{
	char *end;
	long long x;

	if (!s || !*s || isspace((unsigned char) *s))
		return false;
	errno = 0;
	x = strtoll(s, &end, 10);
	if (errno || *end || x < min || x > max)
		return false;
	*v = x;
	return true;
}
