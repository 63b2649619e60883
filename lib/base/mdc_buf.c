/* mdc_buf.c - see mdc_buf.h. */
#include "config.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mdc_buf.h"
#include "mdc_err.h"

void mdc_buf_init(struct mdc_buf *b)
{
	b->s = NULL;
	b->len = b->cap = 0;
}

static int mdc_buf_grow(struct mdc_buf *b, size_t extra)
{
	size_t need, cap;
	char *p;

	if (extra > ((size_t) -1) / 2 - b->len)
		return MDC_ERR_NOMEM;
	need = b->len + extra + 1;
	if (need <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 64;
	while (cap < need)
		cap *= 2;
	p = realloc(b->s, cap);
	if (!p)
		return MDC_ERR_NOMEM;
	b->s = p;
	b->cap = cap;
	return 0;
}

int mdc_buf_add(struct mdc_buf *b, const char *s, size_t n)
{
	if (mdc_buf_grow(b, n))
		return MDC_ERR_NOMEM;
	if (n)
		memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
	return 0;
}

int mdc_buf_adds(struct mdc_buf *b, const char *s)
{
	return mdc_buf_add(b, s, strlen(s));
}

int mdc_buf_addc(struct mdc_buf *b, char c)
{
	return mdc_buf_add(b, &c, 1);
}

int mdc_buf_addf(struct mdc_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || mdc_buf_grow(b, (size_t) n))
		return MDC_ERR_NOMEM;
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t) n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t) n;
	return 0;
}

void mdc_buf_reset(struct mdc_buf *b)
{
	b->len = 0;
	if (b->s)
		b->s[0] = '\0';
}

const char *mdc_buf_str(const struct mdc_buf *b)
{
	return b->s ? b->s : "";
}

char *mdc_buf_release(struct mdc_buf *b)
{
	char *s = b->s ? b->s : strdup("");

	mdc_buf_init(b);
	return s;
}

void mdc_buf_free(struct mdc_buf *b)
{
	free(b->s);
	mdc_buf_init(b);
}
