/* mdc_log.h - leveled logging to stderr, redirectable (plugins send it to
 * Slurm's log instead, so the library never writes to a daemon's stderr). */
#ifndef MDC_LOG_H
#define MDC_LOG_H

enum mdc_log_level { MDC_LOG_ERROR, MDC_LOG_WARN, MDC_LOG_INFO, MDC_LOG_DEBUG };

typedef void (*mdc_log_sink)(enum mdc_log_level level, const char *msg, void *arg);

/* Program name shown as the prefix ("mdcctl: warning: ..."); not copied. */
void mdc_log_init(const char *progname);
void mdc_log_set_level(enum mdc_log_level level);
enum mdc_log_level mdc_log_get_level(void);
/* Replace the stderr writer (NULL restores it). */
void mdc_log_set_sink(mdc_log_sink sink, void *arg);

void mdc_log(enum mdc_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define mdc_error(...) mdc_log(MDC_LOG_ERROR, __VA_ARGS__)
#define mdc_warn(...)  mdc_log(MDC_LOG_WARN, __VA_ARGS__)
#define mdc_info(...)  mdc_log(MDC_LOG_INFO, __VA_ARGS__)
#define mdc_debug(...) mdc_log(MDC_LOG_DEBUG, __VA_ARGS__)

#endif
