/* cmd_cluster.c - stub: replaced by the area that owns these commands. */
#include "config.h"
#include <stdio.h>
#include "mdcctl.h"

int cmd_create(struct mdcctl *g, int argc, char **argv)
{
	(void) argc;
	return mdcctl_usage(g, "%s: not implemented yet", argv[0]);
}

int cmd_delete(struct mdcctl *g, int argc, char **argv)
{
	(void) argc;
	return mdcctl_usage(g, "%s: not implemented yet", argv[0]);
}

int cmd_describe(struct mdcctl *g, int argc, char **argv)
{
	(void) argc;
	return mdcctl_usage(g, "%s: not implemented yet", argv[0]);
}

int cmd_list(struct mdcctl *g, int argc, char **argv)
{
	(void) argc;
	return mdcctl_usage(g, "%s: not implemented yet", argv[0]);
}

int cmd_operations(struct mdcctl *g, int argc, char **argv)
{
	(void) argc;
	return mdcctl_usage(g, "%s: not implemented yet", argv[0]);
}

int cmd_update(struct mdcctl *g, int argc, char **argv)
{
	(void) argc;
	return mdcctl_usage(g, "%s: not implemented yet", argv[0]);
}
