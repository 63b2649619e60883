/* mdc_proc.c - interrupts, the interruptible sleep, no core dumps.
 * (owner: client) */
#include "config.h"
#include <errno.h>
#include <string.h>
#include <time.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include "mdc_proc.h"

/* slices short enough that Ctrl-C feels immediate, long enough to cost nothing */
#define MDC_SLEEP_SLICE_S 0.05

static volatile sig_atomic_t *mdc_intr_watched;

void mdc_intr_watch(volatile sig_atomic_t *flag)
{
	mdc_intr_watched = flag;
}

volatile sig_atomic_t *mdc_intr_flag(void)
{
	return mdc_intr_watched;
}

bool mdc_intr_pending(const volatile sig_atomic_t *extra)
{
	return (mdc_intr_watched && *mdc_intr_watched) || (extra && *extra);
}

static void mdc_intr_handler(int sig)
{
	(void) sig;
	if (mdc_intr_watched)
		*mdc_intr_watched = 1;
}

int mdc_intr_install(volatile sig_atomic_t *flag, struct mdc_ctx *ctx)
{
	struct sigaction sa;

	mdc_intr_watch(flag);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = mdc_intr_handler;
	sa.sa_flags = SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGINT, &sa, NULL))
		return mdc_fail(ctx, MDC_ERR_IO, "cannot catch SIGINT: %s", strerror(errno));
	return 0;
}

bool mdc_sleep(double s, const volatile sig_atomic_t *extra)
{
	double until = mdc_mono() + s, left;

	while (!mdc_intr_pending(extra) && (left = until - mdc_mono()) > 0) {
		struct timespec ts;

		if (left > MDC_SLEEP_SLICE_S)
			left = MDC_SLEEP_SLICE_S;
		ts.tv_sec = 0;
		ts.tv_nsec = (long) (left * 1e9);
		/* EINTR (the signal itself) just goes round and sees the flag */
		nanosleep(&ts, NULL);
	}
	return !mdc_intr_pending(extra);
}

int mdc_no_core_dumps(struct mdc_ctx *ctx)
{
	struct rlimit rl = { 0, 0 };

	if (setrlimit(RLIMIT_CORE, &rl))
		return mdc_fail(ctx, MDC_ERR_IO, "cannot disable core dumps: %s", strerror(errno));
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0))
		return mdc_fail(ctx, MDC_ERR_IO, "cannot mark the process non-dumpable: %s",
				strerror(errno));
	return 0;
}
