/* cmd_drift.c - stub: replaced by the area that owns these commands. */
#include "config.h"
#include <stdio.h>
#include "mdcctl.h"

int cmd_drift(struct mdcctl *g, int argc, char **argv)
{
	(void) argc;
	return mdcctl_usage(g, "%s: not implemented yet", argv[0]);
}
