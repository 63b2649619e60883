/* cmd_pr.c - stub: replaced by the area that owns these commands. */
#include "config.h"
#include <stdio.h>
#include "mdcctl.h"

int cmd_persistent_resources(struct mdcctl *g, int argc, char **argv)
{
	(void) argc;
	return mdcctl_usage(g, "%s: not implemented yet", argv[0]);
}

int cmd_pipelines(struct mdcctl *g, int argc, char **argv)
{
	(void) argc;
	return mdcctl_usage(g, "%s: not implemented yet", argv[0]);
}
