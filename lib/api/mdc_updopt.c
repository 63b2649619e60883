/* mdc_updopt.c - see mdc_updopt.h.  (owner: client) */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "mdc_proc.h"
#include "mdc_updopt.h"

const struct option mdc_updopt_longopts[] = { MDC_UPDOPT_LONGOPTS, { NULL, 0, NULL, 0 } };

const char mdc_updopt_help[] =
	"  --update-mode MODE    USER_ONLY (default) or USER_AND_SERVICE\n"
	"  --no-wait             fail instead of waiting while the cluster is UPDATING\n"
	"  --timeout SECONDS     how long to wait for an operation (default 3600)\n"
	"  --allow-recreate      allow changes that move a node pool's image\n"
	"  --async               do not wait for operations; print their names\n"
	"  --yes                 do not ask for confirmation\n";

int mdc_updopt_set(struct mdc_updopt *u, int id, const char *arg, struct mdc_ctx *ctx)
{
	char *end;
	int mode;

	switch (id) {
	case MDC_UPDOPT_MODE:
		/* the API's default (UNSPECIFIED) may recreate nodes: not offered */
		if ((mode = mdc_mode_parse(arg)) <= MDC_MODE_UNSPECIFIED)
			return mdc_fail(ctx, MDC_ERR_USAGE, "--update-mode '%s': use USER_ONLY or "
					"USER_AND_SERVICE", arg ? arg : "");
		u->mode = (enum mdc_update_mode) mode;
		return 0;
	case MDC_UPDOPT_TIMEOUT:
		u->timeout_s = arg ? strtod(arg, &end) : 0;
		if (!arg || end == arg || *end || !(u->timeout_s > 0) || u->timeout_s > 1e9)
			return mdc_fail(ctx, MDC_ERR_USAGE, "--timeout '%s': give seconds, > 0",
					arg ? arg : "");
		return 0;
	case MDC_UPDOPT_NO_WAIT: u->no_wait = true; return 0;
	case MDC_UPDOPT_ALLOW_RECREATE: u->allow_recreate = true; return 0;
	case MDC_UPDOPT_ASYNC: u->async = true; return 0;
	case MDC_UPDOPT_YES: u->yes = true; return 0;
	}
	return mdc_fail(ctx, MDC_ERR_INTERNAL, "update option %d unknown", id);
}

void mdc_updopt_fill(const struct mdc_updopt *u, struct mdc_update_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->plan.mode = u->mode == MDC_MODE_UNSPECIFIED ? MDC_MODE_USER_ONLY : u->mode;
	o->plan.allow_recreate = u->allow_recreate;
	o->no_wait = u->no_wait;
	o->async = u->async;
	o->lro.timeout_s = u->timeout_s;
	o->lro.interrupted = mdc_intr_flag();
}
