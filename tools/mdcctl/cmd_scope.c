/* cmd_scope.c - stub: replaced by the area that owns these commands. */
#include "config.h"
#include <stdio.h>
#include "mdcctl.h"

int cmd_config(struct mdcctl *g, int argc, char **argv)
{
	(void) argc;
	return mdcctl_usage(g, "%s: not implemented yet", argv[0]);
}

int cmd_epilog(struct mdcctl *g, int argc, char **argv)
{
	(void) argc;
	return mdcctl_usage(g, "%s: not implemented yet", argv[0]);
}

int cmd_labels(struct mdcctl *g, int argc, char **argv)
{
	(void) argc;
	return mdcctl_usage(g, "%s: not implemented yet", argv[0]);
}

int cmd_nodepool(struct mdcctl *g, int argc, char **argv)
{
	(void) argc;
	return mdcctl_usage(g, "%s: not implemented yet", argv[0]);
}

int cmd_nodeset(struct mdcctl *g, int argc, char **argv)
{
	(void) argc;
	return mdcctl_usage(g, "%s: not implemented yet", argv[0]);
}

int cmd_partition(struct mdcctl *g, int argc, char **argv)
{
	(void) argc;
	return mdcctl_usage(g, "%s: not implemented yet", argv[0]);
}

int cmd_prolog(struct mdcctl *g, int argc, char **argv)
{
	(void) argc;
	return mdcctl_usage(g, "%s: not implemented yet", argv[0]);
}
