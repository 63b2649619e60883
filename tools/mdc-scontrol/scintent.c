/* scintent.c - a persistent scontrol command -> an intent for the managed
 * API plus the equivalent real scontrol command for the live slurmctld.
 * Every key and value is checked against the option tables first, so a
 * bad command sends nothing anywhere. */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "mdc_rules.h"
#include "sc_options.h"
#include "scargs.h"
#include "scintent.h"

/* KEY=VALUE for SCOPE, by the service's own rule; *OPT gets the table
 * entry (canonical name). */
static int check_pair(const char *what, unsigned scope, const char *key, const char *value,
		      const struct sc_option **opt, struct mdc_ctx *ctx)
{
	return mdc_rules_check_setting(key, value, scope, what, opt, ctx);
}

static int live_push(struct mdc_strv *live, const char *key, const char *value)
{
	return mdc_strv_pushf(live, "%s=%s", key, value);
}

/* Partition pairs shared by update and create.  KV_OUT (create) collects
 * "Key=Value" strings, else each pair becomes a PART_SET op. */
static int part_pairs(const struct scx_cmd *cmd, const char *conf_path, struct mdc_intent *in,
		      struct mdc_op *create, struct mdc_strv *live, struct mdc_strv *notes,
		      struct mdc_ctx *ctx)
{
	char what[300];
	int rc = 0;

	snprintf(what, sizeof(what), "PartitionName=%s", cmd->name);
	for (size_t i = 0; i < cmd->kv.n && !rc; i++) {
		const char *key = cmd->kv.v[i].key, *val = cmd->kv.v[i].value;
		const struct sc_option *opt;

		if (!strcmp(key, "Nodes")) {
			struct mdc_strv pools = MDC_STRV_INIT;
			char *names = NULL;

			bool exact = true;

			if (!(rc = mdc_live_pools_covering(conf_path, val, &pools, &exact, ctx))) {
				struct mdc_op *op = create;

				if (!op && !(op = mdc_intent_add(in, MDC_OP_PART_POOLS, cmd->name, NULL, NULL)))
					rc = MDC_ERR_NOMEM;
				for (size_t p = 0; !rc && p < pools.n; p++)
					rc = mdc_strv_push(&op->list, pools.v[p]);
			}
			/* live, the partition names the pools' NodeSets, as the
			 * regenerated slurm.conf will (whole pools, NodeSets=) */
			if (!rc && !(names = mdc_strv_join(&pools, ",")))
				rc = MDC_ERR_NOMEM;
			if (!rc)
				rc = live_push(live, key, names);
			if (!rc && !exact)
				rc = mdc_strv_pushf(notes, "%s Nodes=%s: a managed partition holds whole node pools: it gets every node of %s",
						    what, val, names);
			free(names);
			mdc_strv_free(&pools);
			continue;
		} else if (!strcmp(key, "Default")) {
			if (!strcasecmp(val, "YES")) {
				if (!mdc_intent_add(in, MDC_OP_PART_DEFAULT, cmd->name, NULL, NULL))
					rc = MDC_ERR_NOMEM;
			} else if (!create) {
				rc = mdc_fail(ctx, MDC_ERR_REFUSED,
					      "%s: Default=%s: a managed cluster always has one default partition; set Default=YES on another one",
					      what, val);
				break;
			}
		} else {
			if ((rc = check_pair(what, SC_SCOPE_PARTITION, key, val, &opt, ctx)))
				break;
			if (create)
				rc = mdc_strv_pushf(&create->kv, "%s=%s", opt->name, val);
			else if (!mdc_intent_add(in, MDC_OP_PART_SET, cmd->name, opt->name, val))
				rc = MDC_ERR_NOMEM;
		}
		if (!rc)
			rc = live_push(live, key, val);
	}
	if (rc == MDC_ERR_NOMEM)
		mdc_nomem(ctx);
	return rc;
}

int scx_intent(const struct scx_cmd *cmd, const char *conf_path, struct mdc_intent *in,
	       struct mdc_strv *live, struct mdc_strv *notes, struct mdc_ctx *ctx)
{
	static const char *const live_verb[] = {
		[SCX_UPDATE_PART] = "update", [SCX_CREATE_PART] = "create",
		[SCX_DELETE_PART] = "delete", [SCX_UPDATE_NODES] = "update",
	};
	struct mdc_op *op;
	char *pool = NULL;
	int rc = 0;

	if (cmd->verb < SCX_UPDATE_PART || cmd->verb > SCX_UPDATE_NODES)
		return mdc_fail(ctx, MDC_ERR_INTERNAL, "'%s' is not a persistent command",
				scx_verb_name(cmd->verb));
	/* a partition is created under this name in the spec and on the
	 * live slurmctld's command line: the service's id rule first */
	if (cmd->verb != SCX_UPDATE_NODES && (rc = mdc_rules_check_id("partition", cmd->name, ctx)))
		return rc;
	if (!mdc_rules_utf8_ok(cmd->name) || mdc_has_ctrl(cmd->name))
		return mdc_fail(ctx, MDC_ERR_REFUSED, "the name holds control characters or invalid UTF-8");
	if ((rc = mdc_strv_push(live, live_verb[cmd->verb])) ||
	    (rc = live_push(live, cmd->verb == SCX_UPDATE_NODES ? "NodeName" : "PartitionName",
			    cmd->name)))
		goto nomem;

	switch (cmd->verb) {
	case SCX_UPDATE_PART:
		rc = part_pairs(cmd, conf_path, in, NULL, live, notes, ctx);
		break;
	case SCX_CREATE_PART:
		if (!mdc_kvs_get(&cmd->kv, "Nodes")) {
			rc = mdc_fail(ctx, MDC_ERR_USAGE,
				      "create PartitionName=%s: give Nodes= (the node pools' nodes or NodeSet names)",
				      cmd->name);
			break;
		}
		if (!(op = mdc_intent_add(in, MDC_OP_PART_CREATE, cmd->name, NULL, NULL)))
			goto nomem;
		op->where = strdup("argv");
		rc = part_pairs(cmd, conf_path, in, op, live, notes, ctx);
		break;
	case SCX_DELETE_PART:
		if (!mdc_intent_add(in, MDC_OP_PART_DELETE, cmd->name, NULL, NULL))
			goto nomem;
		break;
	case SCX_UPDATE_NODES: {
		char what[300];
		bool whole;

		snprintf(what, sizeof(what), "NodeName=%s", cmd->name);
		if ((rc = mdc_live_pool_of(conf_path, cmd->name, &pool, &whole, ctx)))
			break;
		if (!whole) {
			rc = mdc_fail(ctx, MDC_ERR_REFUSED,
				      "%s: settings persist per node pool; name every node of pool '%s', or use scontrol for a runtime-only change",
				      what, pool);
			break;
		}
		for (size_t i = 0; i < cmd->kv.n; i++) {
			const char *key = cmd->kv.v[i].key, *val = cmd->kv.v[i].value;
			const struct sc_option *opt;

			if ((rc = check_pair(what, SC_SCOPE_NODE, key, val, &opt, ctx)))
				goto out;
			if (!mdc_intent_add(in, MDC_OP_NODESET_SET, pool, opt->name, val) ||
			    live_push(live, key, val))
				goto nomem;
		}
		break;
	}
	default:
		break;
	}
out:
	free(pool);
	return rc;
nomem:
	free(pool);
	return mdc_nomem(ctx);
}
