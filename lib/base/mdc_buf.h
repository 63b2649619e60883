/* mdc_buf.h - a growable, always NUL-terminated string buffer. */
#ifndef MDC_BUF_H
#define MDC_BUF_H

#include <stddef.h>

struct mdc_buf {
	char *s;	/* NUL-terminated once anything was added; may be NULL before */
	size_t len;
	size_t cap;
};

#define MDC_BUF_INIT { NULL, 0, 0 }

void mdc_buf_init(struct mdc_buf *b);
/* Each returns 0, or MDC_ERR_NOMEM leaving the buffer as it was. */
int mdc_buf_add(struct mdc_buf *b, const char *s, size_t n);
int mdc_buf_adds(struct mdc_buf *b, const char *s);
int mdc_buf_addc(struct mdc_buf *b, char c);
int mdc_buf_addf(struct mdc_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void mdc_buf_reset(struct mdc_buf *b);		/* len = 0, keeps memory */
/* The contents ("" when empty), never NULL; owned by the buffer. */
const char *mdc_buf_str(const struct mdc_buf *b);
/* Hand the string to the caller (free() it); the buffer becomes empty.
 * Returns NULL only on allocation failure. */
char *mdc_buf_release(struct mdc_buf *b);
void mdc_buf_free(struct mdc_buf *b);

#endif
