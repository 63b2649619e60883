/* mdc_time.c - the monotonic clock (mdc_time.h).  (owner: base) */
#include "config.h"
#include <time.h>
#include "mdc_time.h"

double mdc_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}
