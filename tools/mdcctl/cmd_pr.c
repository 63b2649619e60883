/* cmd_pr.c - `mdcctl persistent-resources create|list|describe|update|
 * delete|reboot` (DESIGN P1-P4).  The flags follow `gcloud ai
 * persistent-resources` (and gcloud's update-command conventions for
 * labels, as gcloud has no persistent-resources update); the rules and
 * request bodies live in lib/mdc_pr.c and the REST calls in
 * lib/mdc_vertex.c, so everything is checked before sending.  This file
 * parses and prints.  (owner: pr) */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mdc_buf.h"
#include "mdc_json.h"
#include "mdc_log.h"
#include "mdc_pr.h"
#include "cmd_vertex.h"

#define PR_ONE "persistent resource (ID or full name)"

/* One line per pool: "2 x n1-standard-4", "1-3 x n1-standard-8 + 1 NVIDIA_TESLA_T4" */
static void pr_pools_summary(const json_object *res, struct mdc_buf *b)
{
	json_object *pools = mdc_json_get_arr(res, "resource_pools");

	for (size_t i = 0; pools && i < json_object_array_length(pools); i++) {
		json_object *p = json_object_array_get_idx(pools, i);
		json_object *ms = mdc_json_get_obj(p, "machine_spec");
		json_object *as = mdc_json_get_obj(p, "autoscaling_spec");
		json_object *ac = mdc_json_get(ms, "accelerator_count");

		if (i)
			mdc_buf_adds(b, "; ");
		if (as && mdc_json_get(as, "min_replica_count"))
			mdc_buf_addf(b, "%s-%s", json_object_get_string(mdc_json_get(as, "min_replica_count")),
				     json_object_get_string(mdc_json_get(as, "max_replica_count")));
		else
			mdc_buf_addf(b, "%s", mdc_json_get(p, "replica_count") ?
				     json_object_get_string(mdc_json_get(p, "replica_count")) : "?");
		mdc_buf_addf(b, " x %s", mdc_json_get_str(ms, "machine_type", "?"));
		if (mdc_json_get_str(ms, "accelerator_type", NULL))
			mdc_buf_addf(b, " + %s %s", ac ? json_object_get_string(ac) : "1",
				     mdc_json_get_str(ms, "accelerator_type", ""));
	}
}

/* --- create -------------------------------------------------------------- */

static const struct option pr_create_opts[] = {
	VX_COMMON_OPTS,
	{ "persistent-resource-id", required_argument, NULL, O_ID },
	{ "display-name", required_argument, NULL, O_DISPLAY_NAME },
	{ "resource-pool-spec", required_argument, NULL, O_POOL },
	{ "config", required_argument, NULL, O_CONFIG },
	{ "enable-custom-service-account", no_argument, NULL, O_CUSTOM_SA },
	{ "labels", required_argument, NULL, O_LABELS },
	{ "network", required_argument, NULL, O_NETWORK },
	{ "dry-run", no_argument, NULL, O_DRY_RUN },
	VX_END_OPTS,
};

static const struct vx_cmd pr_create_cmd = {
	"mdcctl persistent-resources create --persistent-resource-id=ID\n"
	"         [--display-name=NAME] [--project=P] [--region=L]\n"
	"         [--resource-pool-spec=replica-count=N,machine-type=T,min-replica-count=A,\n"
	"          max-replica-count=B,accelerator-type=X,accelerator-count=K,disk-type=D,\n"
	"          disk-size=GB[,id=POOL]]... [--config=FILE]\n"
	"         [--enable-custom-service-account] [--labels=K=V,...] [--network=NET]\n"
	"         [--async] [--dry-run] [--format=text|json]",
	pr_create_opts, "h", NULL,
};

/* P2, P3, P4: the body from the flags, checked before anything is sent */
static int pr_create_body(struct vx_run *r, json_object **body)
{
	struct mdc_pr_create_opts co = {
		.config_path = r->a.config, .display_name = r->a.display_name,
		.network = r->a.network, .pool_specs = &r->a.pools, .labels = &r->a.labels,
		.enable_custom_service_account = r->a.custom_sa,
	};
	int rc;

	if ((rc = mdc_pr_check_id(r->a.id, &r->ctx)) ||
	    (rc = mdc_pr_create_body(&co, body, &r->ctx)))
		return rc;
	if (!r->a.custom_sa &&
	    !mdc_json_get_bool(mdc_json_get_path(*body, "resource_runtime_spec.service_account_spec"),
			       "enable_custom_service_account", false))
		mdc_warn("without --enable-custom-service-account pipeline runs cannot use "
			 "persistent resource '%s'", r->a.id);
	return 0;
}

/* POST, follow the operation, read the resource back */
static int pr_create_send(struct vx_run *r, const json_object *body)
{
	json_object *op = NULL, *done = NULL, *res = NULL;
	struct mdc_buf note = MDC_BUF_INIT;
	char *name = NULL;
	int rc;

	if (r->g->format == MDCCTL_TEXT)
		fprintf(stderr, "Using endpoint [%s/]\n", r->s.endpoint);
	if ((rc = mdc_pr_create(r->c, r->parent, r->a.id, body, &op, &r->ctx)))
		goto out;
	if ((rc = mdc_pr_resource_name(r->s.project, r->s.region, r->a.id, &name, &r->ctx)))
		goto out;
	if (vx_submitted(&note, "create", op)) {
		rc = mdc_nomem(&r->ctx);
		goto out;
	}
	if ((rc = vx_follow(r, op, note.s, &done)) || r->g->async ||
	    (rc = mdc_pr_get(r->c, name, &res, &r->ctx)))
		goto out;
	if (r->g->format != MDCCTL_TEXT)
		mdcctl_print_resource(res);
	else
		printf("Created persistent resource [%s] (state %s).\n",
		       mdc_json_get_str(res, "name", name), mdc_json_get_str(res, "state", "?"));
out:
	json_object_put(res);
	json_object_put(done);
	json_object_put(op);
	free(name);
	mdc_buf_free(&note);
	return rc;
}

static int pr_create(struct mdcctl *g, int argc, char **argv)
{
	struct vx_run r;
	json_object *body = NULL;
	int rc = vx_begin(g, &pr_create_cmd, argc, argv, &r);

	if (rc >= 0)
		goto out;
	rc = 0;
	if (!r.a.id) {
		rc = mdcctl_usage(g, "persistent-resources create: give --persistent-resource-id=ID");
		goto out;
	}
	if (pr_create_body(&r, &body))
		rc = vx_fail(&r);
	else if (r.a.dry_run)
		mdcctl_print_json(body);
	else if (vx_connect(&r, NULL, true) || pr_create_send(&r, body))
		rc = vx_fail(&r);
out:
	json_object_put(body);
	vx_end(&r);
	return rc;
}

/* --- list ---------------------------------------------------------------- */

static const struct vx_cmd pr_list_cmd = {
	"mdcctl persistent-resources list [--project=P] [--region=L] [--page-size=N] "
	"[--format=text|json]",
	vx_common_opts, "h", NULL,
};

static int pr_list(struct mdcctl *g, int argc, char **argv)
{
	struct mdc_api_list_opts lo = { 0 };
	json_object *all = NULL;
	struct vx_run r;
	int rc = vx_begin(g, &pr_list_cmd, argc, argv, &r);

	if (rc >= 0)
		goto out;
	rc = 0;
	lo.page_size = r.a.page_size;
	if (vx_connect(&r, NULL, true) || mdc_pr_list(r.c, r.parent, &lo, &all, &r.ctx)) {
		rc = vx_fail(&r);
		goto out;
	}
	if (vx_list_printed(g, all))
		goto out;
	printf("%-32s %-13s %-24s %s\n", "ID", "STATE", "DISPLAY_NAME", "POOLS");
	for (size_t i = 0; i < json_object_array_length(all); i++) {
		json_object *res = json_object_array_get_idx(all, i);
		struct mdc_buf b = MDC_BUF_INIT;

		pr_pools_summary(res, &b);
		printf("%-32s %-13s %-24s %s\n", mdc_pr_basename(mdc_json_get_str(res, "name", "")),
		       mdc_json_get_str(res, "state", "-"), mdc_json_get_str(res, "display_name", "-"),
		       mdc_buf_str(&b));
		mdc_buf_free(&b);
	}
out:
	json_object_put(all);
	vx_end(&r);
	return rc;
}

/* --- describe, delete, reboot: one resource named by ID or full name ------ */

static int pr_describe(struct mdcctl *g, int argc, char **argv)
{
	static const struct vx_get o = {
		{ "mdcctl persistent-resources describe ID|NAME [--project=P] [--region=L] "
		  "[--format=text|json]", vx_yes_opts, "hq", PR_ONE },
		mdc_pr_resource_name, mdc_pr_get, NULL,
	};

	return vx_get_run(g, &o, argc, argv);
}

static int pr_delete_note(const struct vx_run *r, const json_object *op, struct mdc_buf *b)
{
	return mdc_buf_addf(b, "Request to delete the PersistentResource [%s] has been sent.\n\n"
			    "You can view the status of your PersistentResource delete operation "
			    "with the command\n\n  $ mdcctl operations describe %s\n\n",
			    r->name, mdc_json_get_str(op, "name", "?"));
}

static int pr_reboot_note(const struct vx_run *r, const json_object *op, struct mdc_buf *b)
{
	(void) r;
	return vx_submitted(b, "reboot", op);
}

static int pr_delete(struct mdcctl *g, int argc, char **argv)
{
	static const struct vx_write w = {
		{ "mdcctl persistent-resources delete ID|NAME [--project=P] [--region=L] "
		  "[--async] [--yes]", vx_yes_opts, "hq", PR_ONE },
		mdc_pr_resource_name, mdc_pr_delete, "persistent resource", true, pr_delete_note,
		"Deleted",
	};

	return vx_write_run(g, &w, argc, argv);
}

static int pr_reboot(struct mdcctl *g, int argc, char **argv)
{
	static const struct vx_write w = {
		{ "mdcctl persistent-resources reboot ID|NAME [--project=P] [--region=L] "
		  "[--async] [--yes]", vx_yes_opts, "hq", PR_ONE },
		mdc_pr_resource_name, mdc_pr_reboot, "persistent resource", false,
		pr_reboot_note, "Rebooted",
	};

	return vx_write_run(g, &w, argc, argv);
}

/* --- update -------------------------------------------------------------- */

static const struct option pr_update_opts[] = {
	VX_COMMON_OPTS,
	{ "display-name", required_argument, NULL, O_DISPLAY_NAME },
	{ "update-labels", required_argument, NULL, O_UPDATE_LABELS },
	{ "remove-labels", required_argument, NULL, O_REMOVE_LABELS },
	{ "clear-labels", no_argument, NULL, O_CLEAR_LABELS },
	{ "resource-pool-spec", required_argument, NULL, O_POOL },
	{ "dry-run", no_argument, NULL, O_DRY_RUN },
	VX_END_OPTS,
};

static const struct vx_cmd pr_update_cmd = {
	"mdcctl persistent-resources update ID|NAME [--project=P] [--region=L]\n"
	"         [--display-name=NAME] [--update-labels=K=V,...] [--remove-labels=K,...]\n"
	"         [--clear-labels] [--resource-pool-spec=id=POOL,replica-count=N]...\n"
	"         [--resource-pool-spec=id=POOL,min-replica-count=A,max-replica-count=B]...\n"
	"         [--async] [--dry-run] [--format=text|json]",
	pr_update_opts, "h", PR_ONE,
};

/* UpdatePersistentResource: read the resource (pools are matched by id
 * against it as it is now), build the masked change with the service's
 * rules (lib), PATCH it, wait for the operation. */
static int pr_update_send(struct vx_run *r)
{
	struct mdc_pr_update_opts uo = {
		.display_name = r->a.display_name, .update_labels = &r->a.update_labels,
		.remove_labels = &r->a.remove_labels, .clear_labels = r->a.clear_labels,
		.pool_specs = &r->a.pools,
	};
	json_object *cur = NULL, *body = NULL, *op = NULL, *done = NULL;
	struct mdc_buf note = MDC_BUF_INIT;
	char *mask = NULL;
	int rc;

	if ((rc = mdc_pr_get(r->c, r->name, &cur, &r->ctx)) ||
	    (rc = mdc_pr_update_body(cur, &uo, &body, &mask, &r->ctx)))
		goto out;
	if (r->a.dry_run) {
		printf("PATCH v1/%s?updateMask=%s\n", r->name, mask);
		mdcctl_print_json(body);
		goto out;
	}
	if ((rc = mdc_pr_update(r->c, r->name, body, mask, &op, &r->ctx)))
		goto out;
	if (vx_submitted(&note, "update", op)) {
		rc = mdc_nomem(&r->ctx);
		goto out;
	}
	if ((rc = vx_follow(r, op, note.s, &done)) || r->g->async)
		goto out;
	if (r->g->format != MDCCTL_TEXT)
		mdcctl_print_resource(mdc_json_get_obj(done, "response"));
	else
		printf("Updated persistent resource [%s] (%s).\n", r->name, mask);
out:
	json_object_put(done);
	json_object_put(op);
	json_object_put(body);
	json_object_put(cur);
	mdc_buf_free(&note);
	free(mask);
	return rc;
}

static int pr_update(struct mdcctl *g, int argc, char **argv)
{
	struct vx_run r;
	int rc = vx_begin(g, &pr_update_cmd, argc, argv, &r);

	if (rc >= 0)
		goto out;
	rc = 0;
	if (!r.a.display_name && !r.a.update_labels.n && !r.a.remove_labels.n &&
	    !r.a.clear_labels && !r.a.pools.n)
		rc = mdcctl_usage(g, "persistent-resources update: nothing to update: give "
				  "--display-name, --update-labels, --remove-labels, --clear-labels "
				  "or --resource-pool-spec");
	else if (vx_connect(&r, mdc_pr_resource_name, false) || pr_update_send(&r))
		rc = vx_fail(&r);
out:
	vx_end(&r);
	return rc;
}

int cmd_persistent_resources(struct mdcctl *g, int argc, char **argv)
{
	static const struct vx_sub subs[] = {
		{ "create", pr_create },
		{ "delete", pr_delete },
		{ "describe", pr_describe },
		{ "list", pr_list },
		{ "reboot", pr_reboot },
		{ "update", pr_update },
	};

	return vx_dispatch(g, argc, argv, subs, sizeof(subs) / sizeof(subs[0]));
}
