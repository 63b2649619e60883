/* cmd_plan.c - stub: replaced by the area that owns these commands. */
#include "config.h"
#include <stdio.h>
#include "mdcctl.h"

int cmd_apply(struct mdcctl *g, int argc, char **argv)
{
	(void) argc;
	return mdcctl_usage(g, "%s: not implemented yet", argv[0]);
}

int cmd_edit(struct mdcctl *g, int argc, char **argv)
{
	(void) argc;
	return mdcctl_usage(g, "%s: not implemented yet", argv[0]);
}

int cmd_migrate_config(struct mdcctl *g, int argc, char **argv)
{
	(void) argc;
	return mdcctl_usage(g, "%s: not implemented yet", argv[0]);
}

int cmd_plan(struct mdcctl *g, int argc, char **argv)
{
	(void) argc;
	return mdcctl_usage(g, "%s: not implemented yet", argv[0]);
}

int cmd_render(struct mdcctl *g, int argc, char **argv)
{
	(void) argc;
	return mdcctl_usage(g, "%s: not implemented yet", argv[0]);
}
