/* mdc_log.c - see mdc_log.h. */
#include "config.h"
#include <stdarg.h>
#include <stdio.h>
#include "mdc_log.h"

static const char *mdc_log_prog = "mdc";
static enum mdc_log_level mdc_log_level_cur = MDC_LOG_WARN;
static mdc_log_sink mdc_log_sink_fn;
static void *mdc_log_sink_arg;

static const char *const mdc_log_names[] = {
	[MDC_LOG_ERROR] = "error", [MDC_LOG_WARN] = "warning",
	[MDC_LOG_INFO] = "info", [MDC_LOG_DEBUG] = "debug",
};

void mdc_log_init(const char *progname)
{
	if (progname)
		mdc_log_prog = progname;
}

void mdc_log_set_level(enum mdc_log_level level) { mdc_log_level_cur = level; }
enum mdc_log_level mdc_log_get_level(void) { return mdc_log_level_cur; }

void mdc_log_set_sink(mdc_log_sink sink, void *arg)
{
	mdc_log_sink_fn = sink;
	mdc_log_sink_arg = arg;
}

void mdc_log(enum mdc_log_level level, const char *fmt, ...)
{
	char msg[4096];
	va_list ap;

	if (level > mdc_log_level_cur)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (mdc_log_sink_fn) {
		mdc_log_sink_fn(level, msg, mdc_log_sink_arg);
		return;
	}
	fprintf(stderr, "%s: %s: %s\n", mdc_log_prog, mdc_log_names[level], msg);
}
