/* cmd_history.c - history and rollback: mdcd's record of writes, and the
 * return to the spec before one of them as an ordinary change (plan,
 * confirmation, the same safe write).  Both need the broker: the record
 * lives in mdcd.  (owner: mdcd) */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "mdc_broker.h"
#include "mdc_buf.h"
#include "mdc_json.h"
#include "mdc_update.h"
#include "mdcctl.h"

static int history_connect(struct mdcctl *g, bool need_cluster, struct mdc_settings *s,
			   struct mdc_client **c, struct mdc_ctx *ctx)
{
	int rc;

	if ((rc = mdcctl_connect(g, need_cluster, s, c, ctx)))
		return rc;
	if (!mdc_client_is_brokered(*c))
		return mdc_fail(ctx, MDC_ERR_USAGE, "the history of writes is kept by mdcd: set "
				"MDC_BROKER or 'Broker =' in mdc.conf");
	return 0;
}

/* One line per write: id, time, user, what, result, command. */
static void history_print(const json_object *list)
{
	size_t n = json_object_array_length(list);

	printf("%-5s %-20s %-12s %-8s %-9s %s\n", "ID", "TIME", "USER", "OP", "RESULT", "COMMAND");
	for (size_t i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(list, i);
		const char *op = mdc_json_get_str(e, "op", "?");
		const char *cmd = mdc_json_get_str(e, "command", "");

		printf("%-5lld %-20s %-12s %-8s %-9s %s\n", (long long) mdc_json_get_int(e, "id", 0),
		       mdc_json_get_str(e, "time", ""), mdc_json_get_str(e, "user", "?"),
		       !strcmp(op, "call") ? mdc_json_get_str(e, "method", "call") : op,
		       mdc_json_get_str(e, "result", "?"), *cmd ? cmd : mdc_json_get_str(e, "path", ""));
	}
}

int cmd_history(struct mdcctl *g, int argc, char **argv)
{
	static const struct option opts[] = { { "all", no_argument, NULL, 'a' }, { NULL, 0, NULL, 0 } };
	struct mdc_settings s;
	struct mdc_client *c = NULL;
	json_object *list = NULL;
	struct mdc_ctx ctx;
	bool all = false;
	int rc = 0, opt;

	mdc_ctx_clear(&ctx);
	memset(&s, 0, sizeof(s));
	while ((opt = mdcctl_getopt(g, argc, argv, "", opts, &rc)) != -1 && opt != '?')
		all = true;
	if (rc)
		return rc;
	if (optind < argc)
		return mdcctl_usage(g, "history: unexpected argument '%s' (see mdcctl(1))", argv[optind]);
	if ((rc = history_connect(g, false, &s, &c, &ctx)) ||
	    (rc = mdc_broker_history(c, all ? NULL : s.cluster, &list, &ctx)))
		goto out;
	if (g->format == MDCCTL_JSON)
		mdcctl_print_json(list);
	else
		history_print(list);
out:
	rc = rc ? mdcctl_fail(g, &ctx) : 0;
	json_object_put(list);
	mdc_client_free(c);
	mdc_settings_free(&s);
	return rc;
}

int cmd_rollback(struct mdcctl *g, int argc, char **argv)
{
	struct mdc_settings s;
	struct mdc_client *c = NULL;
	struct mdc_intent in = MDC_INTENT_INIT;
	json_object *target = NULL, *current = NULL;
	struct mdc_update_opts uo;
	struct mdc_plan plan;
	struct mdc_buf b = MDC_BUF_INIT;
	struct mdc_ctx ctx;
	char what[64], *end;
	long id;
	int rc;
	if ((rc = mdcctl_operands(g, &argc, &argv)))
		return rc;

	mdc_ctx_clear(&ctx);
	memset(&s, 0, sizeof(s));
	memset(&plan, 0, sizeof(plan));
	if (argc != 2)
		return mdcctl_usage(g, "rollback needs the id of a write (see 'mdcctl history')");
	id = strtol(argv[1], &end, 10);
	if (*end || end == argv[1] || id <= 0)
		return mdcctl_usage(g, "rollback '%s': give the id of a write (see 'mdcctl history')",
				    argv[1]);
	snprintf(what, sizeof(what), "rollback to before write %ld", id);
	if ((rc = history_connect(g, true, &s, &c, &ctx)) ||
	    (rc = mdc_broker_snapshot(c, id, true, &target, &ctx)) ||
	    (rc = mdc_cluster_get(c, s.cluster, &current, &ctx)))
		goto out;
	if (strcmp(mdc_json_get_str(target, "name", s.cluster), s.cluster)) {
		rc = mdc_fail(&ctx, MDC_ERR_INVAL, "write %ld changed cluster '%s', not '%s'", id,
			      mdc_json_get_str(target, "name", ""), s.cluster);
		goto out;
	}
	if ((rc = mdc_rollback_intent(current, target, &in, &ctx)))
		goto out;
	for (size_t i = 0; i < in.notes.n; i++)
		fprintf(stderr, "%s: note: %s\n", g->progname, in.notes.v[i]);
	if (!g->yes) {
		/* show the change and ask, as apply does */
		if ((rc = mdcctl_update_opts(g, &uo, &ctx)))
			goto out;
		uo.dry_run = true;
		if ((rc = mdc_update_run(c, &s, &in, &uo, &plan, NULL, &ctx)))
			goto out;
		if (mdc_plan_empty(&plan)) {
			printf("%s: no change (the cluster already has it)\n", what);
			goto out;
		}
		mdc_plan_format(&plan, &b);
		fputs(mdc_buf_str(&b), stdout);
		fflush(stdout);
		if (!isatty(STDIN_FILENO)) {
			rc = mdc_fail(&ctx, MDC_ERR_REFUSED, "%s needs a confirmation and there is no "
				      "terminal: give --yes; nothing was sent", what);
			goto out;
		}
		if (!mdcctl_confirm(g, "Roll back?")) {
			rc = mdc_fail(&ctx, MDC_ERR_REFUSED, "cancelled: nothing was sent");
			goto out;
		}
	}
	rc = mdcctl_update(g, &in, what);
	goto done;
out:
	rc = rc ? mdcctl_fail(g, &ctx) : 0;
done:
	mdc_buf_free(&b);
	mdc_plan_free(&plan);
	mdc_intent_free(&in);
	json_object_put(target);
	json_object_put(current);
	mdc_client_free(c);
	mdc_settings_free(&s);
	return rc;
}
