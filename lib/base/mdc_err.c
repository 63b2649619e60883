/* mdc_err.c - error enum, messages and exit codes. */
#include "config.h"
#include <stdio.h>
#include <string.h>
#include "mdc_err.h"

/* Indexed by enum mdc_err: the text and the exit code a tool returns.
 * Exit codes are documented in mdcctl(1); keep them stable. */
static const struct {
	const char *text;
	int exit_code;
} mdc_err_table[MDC_ERR_MAX] = {
	[MDC_OK]		= { "success", 0 },
	[MDC_ERR_NOMEM]		= { "out of memory", 1 },
	[MDC_ERR_USAGE]		= { "usage error", 2 },
	[MDC_ERR_INVAL]		= { "invalid input", 3 },
	[MDC_ERR_PARSE]		= { "parse error", 3 },
	[MDC_ERR_IO]		= { "input/output error", 1 },
	[MDC_ERR_NOTFOUND]	= { "not found", 4 },
	[MDC_ERR_REFUSED]	= { "refused before sending", 3 },
	[MDC_ERR_API]		= { "API error", 5 },
	[MDC_ERR_HTTP]		= { "transport error", 5 },
	[MDC_ERR_AUTH]		= { "authentication error", 7 },
	[MDC_ERR_TIMEOUT]	= { "timed out", 8 },
	[MDC_ERR_OPFAILED]	= { "operation failed", 6 },
	[MDC_ERR_CONFLICT]	= { "conflict", 9 },
	[MDC_ERR_INTERRUPTED]	= { "interrupted", 130 },
	[MDC_ERR_VERIFY]	= { "verification failed", 10 },
	[MDC_ERR_INTERNAL]	= { "internal error", 1 },
	[MDC_ERR_LOST]		= { "change overwritten", 11 },
};

const char *mdc_strerror(enum mdc_err err)
{
	if ((int) err < 0 || err >= MDC_ERR_MAX || !mdc_err_table[err].text)
		return "unknown error";
	return mdc_err_table[err].text;
}

int mdc_exit_code(enum mdc_err err)
{
	if ((int) err < 0 || err >= MDC_ERR_MAX)
		return 1;
	return mdc_err_table[err].exit_code;
}

void mdc_ctx_clear(struct mdc_ctx *ctx)
{
	if (!ctx)
		return;
	memset(ctx, 0, sizeof(*ctx));
}

int mdc_vfail(struct mdc_ctx *ctx, enum mdc_err err, const char *fmt, va_list ap)
{
	if (!ctx || ctx->err != MDC_OK)
		return err;
	ctx->err = err;
	vsnprintf(ctx->msg, sizeof(ctx->msg), fmt, ap);
	return err;
}

int mdc_fail(struct mdc_ctx *ctx, enum mdc_err err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	mdc_vfail(ctx, err, fmt, ap);
	va_end(ap);
	return err;
}

void mdc_ctx_prefix(struct mdc_ctx *ctx, const char *fmt, ...)
{
	char head[512], old[MDC_CTX_MSG_MAX];
	size_t n;
	va_list ap;

	if (!ctx)
		return;
	va_start(ap, fmt);
	vsnprintf(head, sizeof(head), fmt, ap);
	va_end(ap);
	memcpy(old, ctx->msg, sizeof(old));
	/* "HEAD: OLD", cut to fit (the head is the context, keep it whole) */
	n = strlen(head);
	if (n + 2 >= sizeof(ctx->msg))
		n = sizeof(ctx->msg) - 3;
	memcpy(ctx->msg, head, n);
	memcpy(ctx->msg + n, ": ", 2);
	n += 2;
	memcpy(ctx->msg + n, old, sizeof(ctx->msg) - n - 1);
	ctx->msg[sizeof(ctx->msg) - 1] = '\0';
}

int mdc_nomem(struct mdc_ctx *ctx)
{
	return mdc_fail(ctx, MDC_ERR_NOMEM, "%s", mdc_strerror(MDC_ERR_NOMEM));
}
