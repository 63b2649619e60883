/* emu_cluster.c - ModelDevelopmentCluster routes (create, get, list,
 * patch, delete) and the emulator's own image control endpoint.  The
 * rules themselves live in lib/mdc_rules.c, shared with the client. */
#include "config.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "emu_int.h"
#include "mdc_buf.h"
#include "mdc_hash.h"
#include "mdc_json.h"
#include "mdc_schema.h"
#include "sc_render.h"
#include "mdc_str.h"

#define EMU_API "type.googleapis.com/google.cloud.aiplatform.v1beta1."
#define EMU_COLL "/modelDevelopmentClusters"

/* Internal keys of a stored cluster (stripped from answers). */
#define EMU_NEVER_UPDATED "_never_updated"
#define EMU_NODES_CHANGED "_nodes_changed"

/* The view a client sees: a never-updated cluster reports empty images
 * (C11).  The view shares the stored cluster's subtrees (a stored cluster
 * is never changed below its top level: an update makes a new one), so it
 * costs the top level, not the cluster's size. */
json_object *emu_cluster_view(const json_object *cluster)
{
	json_object *v = json_object_new_object(), *pools, *np;

	if (!v)
		return NULL;
	json_object_object_foreach((json_object *) cluster, k, m)
		json_object_object_add(v, k, json_object_get(m));
	/* a cluster stored before clusterStatus was modelled */
	if (!mdc_json_get_obj(v, "cluster_status"))
		emu_cluster_set_state(v, mdc_json_get_str(v, "state", "RUNNING"), NULL,
				      mdc_json_get_str(v, "create_time", NULL));
	if (mdc_json_get_bool(v, EMU_NEVER_UPDATED, false) &&
	    (pools = mdc_json_get_arr(v, "node_pools")) &&
	    (np = json_object_new_array_ext((int) json_object_array_length(pools)))) {
		for (size_t i = 0; i < json_object_array_length(pools); i++) {
			json_object *p = json_object_array_get_idx(pools, i), *c = p;

			if (json_object_is_type(p, json_type_object) && (c = json_object_new_object())) {
				json_object_object_foreach(p, pk, pm)
					json_object_object_add(c, pk, json_object_get(pm));
				mdc_json_set(c, "node_image", json_object_new_string(""));
			} else {
				c = json_object_get(p);
			}
			json_object_array_add(np, c);
		}
		mdc_json_set(v, "node_pools", np);
	}
	return v;
}

/* CLUSTER is stored from now on, and a stored cluster never changes below
 * its top level: its list elements keep their text, so the journal lines,
 * finished operations and snapshots that write them again copy it (with
 * mdc_rules sharing a list's unchanged elements between versions, an
 * update of one partition of 200 serialises one). */
void emu_cluster_keep_texts(json_object *cluster)
{
	static const char *const lists[] = { "node_pools", "orchestrator_spec.slurm_spec.partitions" };

	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		json_object *arr = mdc_json_get_path(cluster, lists[i]);

		/* out of memory: that element serialises itself */
		for (size_t j = 0; json_object_is_type(arr, json_type_array) &&
		     j < json_object_array_length(arr); j++)
			(void) mdc_json_keep_text(json_object_array_get_idx(arr, j));
	}
}

/* The published resource reports its state in clusterStatus (state,
 * detail, nodesStatus: one entry per node with the published fields:
 * instance name and id, pool and its type, state and detail, create and
 * last update times, physical host),
 * not at the top level (magic-modules ModelDevelopmentCluster.yaml).  The
 * top-level "state" stays for the emulator's own bookkeeping and older
 * clients.  A node keeps its create time unless its pool is in RECREATED;
 * then it is NOW, which is how a client sees a recreation on the service. */
static const char *const emu_state_detail[][2] = {
	{ "PROVISIONING", "the cluster is being created" },
	{ "RUNNING", "the cluster is running" },
	{ "UPDATING", "an update of the cluster is being applied" },
	{ "STOPPING", "the cluster is being deleted" },
	{ "ERROR", "the cluster failed" },
};

/* nodeState -> the node's detail */
static const char *const emu_node_detail[][2] = {
	{ "PREPARING", "the node's VM is being created and set up" },
	{ "RUNNING", "the node is running" },
	{ "ERROR", "the node's VM could not be created" },
};

/* The node's VM as the service reports it: a Compute Engine instance id
 * (a decimal uint64, new with each VM: from the name and the VM's create
 * time) and the physical host it landed on (synthetic, stable per VM). */
static void emu_node_vm(json_object *node, const char *inst, const char *born, const char *zone)
{
	char key[400], buf[64];
	uint64_t h;
	json_object *ph = json_object_new_object();

	snprintf(key, sizeof(key), "%s@%s", inst, born);
	h = mdc_hash_str(key, MDC_HASH_EXACT);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long) (h >> 1));
	json_object_object_add(node, "instance_id", json_object_new_string(buf));
	if (!ph)
		return;
	snprintf(buf, sizeof(buf), "emu-%s", *zone ? zone : "cluster");
	json_object_object_add(ph, "cluster_name", json_object_new_string(buf));
	snprintf(buf, sizeof(buf), "block-%llu", (unsigned long long) (h % 8));
	json_object_object_add(ph, "block_id", json_object_new_string(buf));
	snprintf(buf, sizeof(buf), "subblock-%llu", (unsigned long long) ((h >> 8) % 4));
	json_object_object_add(ph, "subblock_id", json_object_new_string(buf));
	snprintf(buf, sizeof(buf), "host-%08llx", (unsigned long long) ((h >> 16) & 0xffffffffu));
	json_object_object_add(ph, "host_id", json_object_new_string(buf));
	json_object_object_add(node, "physical_host", ph);
}

static json_object *emu_old_node(const json_object *old_status, const char *instance)
{
	json_object *nodes = mdc_json_get_arr(old_status, "nodes_status");

	for (size_t i = 0; nodes && i < json_object_array_length(nodes); i++) {
		json_object *n = json_object_array_get_idx(nodes, i);

		if (!strcmp(mdc_json_get_str(n, "instance_name", ""), instance))
			return n;
	}
	return NULL;
}

void emu_cluster_set_state(json_object *cl, const char *state, const struct mdc_strv *recreated,
			   const char *now)
{
	json_object *old = mdc_json_get_obj(cl, "cluster_status"), *st, *nodes;
	json_object *pools = mdc_json_get_arr(cl, "node_pools");
	const char *login = mdc_json_get_str(mdc_json_get_path(cl, "orchestrator_spec.slurm_spec"),
					     "login_node_pool_id", "");
	const char *cluster = strrchr(mdc_json_get_str(cl, "name", ""), '/');
	const char *detail = "";
	char ts[40], st_copy[32];

	/* STATE may be CL's own string, which the first set releases */
	snprintf(st_copy, sizeof(st_copy), "%s", state);
	state = st_copy;
	if (!now) {
		emu_now_rfc3339(ts, sizeof(ts));
		now = ts;
	}
	cluster = cluster ? cluster + 1 : "cluster";
	for (size_t i = 0; i < sizeof(emu_state_detail) / sizeof(emu_state_detail[0]); i++)
		if (!strcmp(emu_state_detail[i][0], state))
			detail = emu_state_detail[i][1];
	mdc_json_set(cl, "state", json_object_new_string(state));
	if (!(st = json_object_new_object()) || !(nodes = json_object_new_array())) {
		json_object_put(st);
		return;
	}
	json_object_object_add(st, "state", json_object_new_string(state));
	json_object_object_add(st, "detail", json_object_new_string(detail));
	for (size_t i = 0; pools && i < json_object_array_length(pools); i++) {
		json_object *p = json_object_array_get_idx(pools, i);
		const char *id = mdc_json_get_str(p, "id", "");
		bool is_login = !strcmp(id, login);
		int64_t n = is_login ? 1 : mdc_json_get_int(mdc_json_get_obj(p, "scaling_spec"),
							    "min_node_count", 0);

		for (int64_t k = 0; k < n && k < 4096; k++) {
			const char *nstate = !strcmp(state, "PROVISIONING") ? "PREPARING" :
					     !strcmp(state, "ERROR") ? "ERROR" : "RUNNING";
			json_object *was, *node;
			const char *born;
			char inst[300];

			snprintf(inst, sizeof(inst), "%s-%s-%lld", cluster, id, (long long) k);
			was = recreated && mdc_strv_has(recreated, id) ? NULL : emu_old_node(old, inst);
			born = mdc_json_get_str(was, "create_time", NULL);
			/* an unchanged node is the old object: journal lines
			 * and snapshots then write it as kept */
			if (was && !strcmp(mdc_json_get_str(was, "node_state", ""), nstate)) {
				json_object_array_add(nodes, json_object_get(was));
				continue;
			}
			if (!(node = json_object_new_object()))
				break;
			json_object_object_add(node, "instance_name", json_object_new_string(inst));
			json_object_object_add(node, "node_pool_id", json_object_new_string(id));
			json_object_object_add(node, "node_pool_type", json_object_new_string(
						       is_login ? "NODE_POOL_TYPE_LOGIN" : "NODE_POOL_TYPE_COMPUTE"));
			json_object_object_add(node, "node_state", json_object_new_string(nstate));
			for (size_t d = 0; d < sizeof(emu_node_detail) / sizeof(emu_node_detail[0]); d++)
				if (!strcmp(emu_node_detail[d][0], nstate))
					json_object_object_add(node, "detail",
							       json_object_new_string(emu_node_detail[d][1]));
			json_object_object_add(node, "create_time", json_object_new_string(born ? born : now));
			/* the state (and detail) changed now */
			json_object_object_add(node, "last_update_time", json_object_new_string(now));
			emu_node_vm(node, inst, born ? born : now, mdc_json_get_str(p, "zone", ""));
			json_object_array_add(nodes, node);
		}
	}
	json_object_object_add(st, "nodes_status", nodes);
	mdc_json_set(cl, "cluster_status", st);
}

/* The resource's fields, types, enums and limits are lib/mdc_schema.c's
 * table (the published resource), shared with the client. */

static bool emu_has_updatable_under(const char *path)
{
	size_t n = strlen(path);

	const struct mdc_schema_field *f;

	for (size_t i = 0; (f = mdc_schema_at(i)); i++) {
		const char *p = f->path;

		if (!strncmp(p, path, n) && p[n] == '.' && mdc_rules_mask_path(p))
			return true;
	}
	return false;
}

/* C3: a PATCH without updateMask changes only the updatable fields; one
 * that would change another field (display_name, network, ...) is refused
 * naming it, instead of dropping the change.  BODY is snake_case.  1 if
 * answered. */
static int emu_fixed_fields(const json_object *cur, const json_object *body, const char *path,
			    struct emu_response *out)
{
	json_object_object_foreach((json_object *) body, k, v) {
		char full[512];
		const struct mdc_schema_field *f;
		json_object *was;

		snprintf(full, sizeof(full), "%s%s%s", path, *path ? "." : "", k);
		f = mdc_schema_find(full);
		if (!f || (f->flags & MDC_SCHEMA_OUTPUT) || mdc_rules_mask_path(full))
			continue;
		was = mdc_json_get_path(cur, full);
		if (json_object_is_type(v, json_type_object) && emu_has_updatable_under(full)) {
			if (emu_fixed_fields(cur, v, full, out))
				return 1;
			continue;
		}
		if (was ? mdc_json_equal(was, v) : !v)
			continue;
		emu_reply_found_errors(out, full, "field '%s' cannot be changed by an update: only labels, "
				    "node_pools and orchestrator_spec.slurm_spec's partitions, "
				    "default_partition_id, login_node_pool_id, prolog_bash_scripts, "
				    "epilog_bash_scripts, config, scheduling, accounting and node_sets "
				    "can; leave it as it is (or name only updatable fields in updateMask)",
				    full);
		return 1;
	}
	return 0;
}

/* Query parameters each call accepts (snake_case), beyond the system ones. */
static const char *const emu_sys_params[] = {
	"alt", "fields", "key", "pretty_print", "quota_user", "access_token", "callback",
	"upload_protocol", "upload_type", "$.xgafv", "oauth_token", "user_ip", NULL,
};

/* 1 (answered) if the query has a name outside ALLOWED and the system set. */
int emu_unknown_params(const struct emu_request *r, const char *const *allowed,
			      struct emu_response *out)
{
	json_object_object_foreach(r->query, k, v) {
		char snake[256];
		bool known = false;

		(void) v;
		mdc_camel_to_snake(k[0] == '$' && strcmp(k, "$.xgafv") ? k + 1 : k, snake, sizeof(snake));
		for (size_t i = 0; allowed && allowed[i] && !known; i++)
			known = !strcmp(snake, allowed[i]);
		for (size_t i = 0; emu_sys_params[i] && !known; i++)
			known = !strcmp(snake, emu_sys_params[i]) || !strcmp(k, emu_sys_params[i]);
		if (!known) {
			emu_reply_bad_field(out, k, "Invalid JSON payload received. Unknown name \"%s\": "
					    "Cannot bind query parameter. Field '%s' could not be found "
					    "in request message.", k, k);
			return 1;
		}
	}
	return 0;
}

static const char *emu_query(const struct emu_request *r, const char *snake)
{
	const char *v = mdc_json_get_str(r->query, snake, NULL);

	return v;
}

/* "projects/P/locations/L/modelDevelopmentClusters[/C]": split into the
 * parent and the id.  Returns false if the shape is wrong. */
static bool emu_cluster_name(const char *name, char *parent, size_t psz, const char **id)
{
	const char *coll = strstr(name, EMU_COLL);
	int slashes = 0;

	if (!coll || (size_t) (coll - name) >= psz)
		return false;
	for (const char *p = name; p < coll; p++)
		slashes += *p == '/';
	if (slashes != 3 || !mdc_startswith(name, "projects/") || !strstr(name, "/locations/"))
		return false;
	memcpy(parent, name, (size_t) (coll - name));
	parent[coll - name] = '\0';
	coll += strlen(EMU_COLL);
	if (!*coll) {
		*id = NULL;
		return true;
	}
	if (*coll != '/' || !coll[1] || strchr(coll + 1, '/'))
		return false;
	*id = coll + 1;
	return true;
}

static void emu_images(struct emu *e, struct mdc_images *im)
{
	im->defaults = e->images;
}

/* The failure --fault create:... gives an accepted create of CL, or NULL:
 * a google.rpc.Status as the service's failed creates end with (code 8
 * for a stockout, 3 for a machine type the service does not allow). */
static json_object *emu_create_fault(const struct emu *e, const json_object *cl)
{
	json_object *pools = mdc_json_get_arr(cl, "node_pools");

	for (size_t f = 0; f < e->ncreate_faults; f++) {
		const struct emu_create_fault *cf = &e->create_faults[f];

		for (size_t i = 0; pools && i < json_object_array_length(pools); i++) {
			json_object *p = json_object_array_get_idx(pools, i), *st;
			const char *type = mdc_json_get_str(mdc_json_get_obj(p, "machine_spec"),
							    "machine_type", "");
			char msg[512];

			if (*cf->machine_type && strcmp(cf->machine_type, type))
				continue;
			if (cf->code == 8)
				snprintf(msg, sizeof(msg), "zone %s has not enough resources for node "
					 "pool '%s' (%s) now (a stockout): try another zone or machine "
					 "type, or later", mdc_json_get_str(p, "zone", "?"),
					 mdc_json_get_str(p, "id", ""), type);
			else
				snprintf(msg, sizeof(msg), "machine type %s is not allowed for VM", type);
			if (!(st = json_object_new_object()))
				return NULL;
			json_object_object_add(st, "code", json_object_new_int(cf->code));
			json_object_object_add(st, "message", json_object_new_string(msg));
			return st;
		}
	}
	return NULL;
}

/* A setting the cluster's Slurm release (--slurm-release) does not know
 * would give a slurm.conf its slurmctld does not start with: refused as
 * the service's validation, naming the release.  1 when refused. */
static int emu_release_refuses(struct emu *e, const json_object *cl, struct emu_response *out)
{
	struct mdc_ctx ctx;
	char field[256];

	mdc_ctx_clear(&ctx);
	if (!sc_render_check_release(cl, e->slurm_release, field, sizeof(field), &ctx))
		return 0;
	emu_reply_found_errors(out, field, "%s", ctx.msg);
	return 1;
}

static int emu_cluster_create(struct emu *e, struct emu_request *r, const char *parent,
			      struct emu_response *out)
{
	const char *id = emu_query(r, "model_development_cluster_id");
	struct mdc_images im;
	struct mdc_ctx ctx;
	json_object *cl = NULL, *final, *op;
	char name[1024], now[40], op_parent[600];

	if (!id)
		id = emu_query(r, "modelDevelopmentClusterId");
	if (!id || !*id)
		return emu_reply_found_errors(out, "model_development_cluster_id",
					      "missing query parameter 'model_development_cluster_id'");
	if (!r->body || !json_object_is_type(r->body, json_type_object))
		return emu_reply_found_errors(out, "model_development_cluster",
					      "the request body must be a ModelDevelopmentCluster object");
	snprintf(name, sizeof(name), "%s%s/%s", parent, EMU_COLL, id);
	/* a cluster whose create failed stays (in ERROR) and holds its id */
	if (emu_store_get(e, "cluster", name))
		return emu_reply_status(out, "ALREADY_EXISTS", "There is an existing "
					"ModelDevelopmentCluster with the same ID \"%s\": delete it "
					"and retry, or use another ID.", id);
	mdc_ctx_clear(&ctx);
	{
		struct mdc_schema_result res;

		/* the published resource's required fields */
		if (mdc_schema_check_ex(r->body, NULL, MDC_SCHEMA_OUTPUT_IGNORED | MDC_SCHEMA_CREATE,
					&res, &ctx))
			return emu_reply_schema_found(out, &res, &ctx);
	}
	emu_images(e, &im);
	if (mdc_rules_check_create(id, r->body, &im, &cl, &ctx))
		return emu_reply_ctx(out, &ctx);
	if (emu_release_refuses(e, cl, out)) {
		json_object_put(cl);
		return 0;
	}
	emu_now_rfc3339(now, sizeof(now));
	{
		/* "name" first, as the service prints it */
		json_object *ordered = json_object_new_object();

		json_object_object_add(ordered, "name", json_object_new_string(name));
		json_object_object_foreach(cl, k, v)
			if (strcmp(k, "name"))
				json_object_object_add(ordered, k, json_object_get(v));
		json_object_put(cl);
		cl = ordered;
	}
	mdc_json_set(cl, "create_time", json_object_new_string(now));
	mdc_json_set(cl, "update_time", json_object_new_string(now));
	emu_cluster_set_state(cl, "PROVISIONING", NULL, now);
	mdc_json_set(cl, EMU_NEVER_UPDATED, json_object_new_boolean(1));
	/* restart or reconfigure: decided against the slurm.conf in place */
	mdc_json_set(cl, EMU_NODES_CHANGED, json_object_new_boolean(0));
	final = mdc_json_copy(cl);
	emu_cluster_set_state(final, "RUNNING", NULL, now);
	emu_cluster_keep_texts(cl);
	emu_cluster_keep_texts(final);
	emu_store_put(e, "cluster", name, cl);
	op = emu_op_start(e, &(struct emu_op_spec) {
		.parent = emu_parent_numbered(e, parent, true, op_parent, sizeof(op_parent)),
		.metadata_type = EMU_API "CreateModelDevelopmentClusterOperationMetadata",
		.progress = "creating model development cluster",
		.kind = "cluster", .res_name = name, .final = final,
		.response_type = EMU_API "ModelDevelopmentCluster",
		.fail = emu_create_fault(e, cl),
	});
	if (!op)
		return emu_reply_error(out, "INTERNAL", "out of memory");
	return emu_reply(out, 200, op);
}

static int emu_cluster_get(struct emu *e, const char *name, struct emu_response *out)
{
	json_object *cl = emu_store_get(e, "cluster", name);

	if (!cl)
		return emu_reply_error(out, "NOT_FOUND", "model development cluster '%s' not found", name);
	return emu_reply(out, 200, emu_cluster_view(cl));
}

static int emu_cluster_list(struct emu *e, struct emu_request *r, const char *parent,
			    struct emu_response *out)
{
	const char *ps = emu_query(r, "page_size"), *pt = emu_query(r, "page_token");
	char prefix[1100], next[32];
	json_object *all, *page, *res;
	long size = 50, start = 0;
	char *end;
	size_t n;

	if (!ps)
		ps = emu_query(r, "pageSize");
	if (!pt)
		pt = emu_query(r, "pageToken");
	if (ps && *ps) {
		size = strtol(ps, &end, 10);
		if (*end || size < 0)
			return emu_reply_bad_field(out, "page_size", "invalid pageSize '%s': expected "
						   "a non-negative integer", ps);
		if (size == 0 || size > 1000)
			size = size ? 1000 : 50;
	}
	if (pt && *pt) {
		start = strtol(pt, &end, 10);
		if (*end || start < 0 || !isdigit((unsigned char) pt[0]))
			return emu_reply_bad_field(out, "page_token", "invalid pageToken '%s': pass the "
						   "nextPageToken of the previous page", pt);
	}
	snprintf(prefix, sizeof(prefix), "%s%s/", parent, EMU_COLL);
	all = emu_store_list(e, "cluster", prefix);
	n = json_object_array_length(all);
	if ((size_t) start > n) {
		json_object_put(all);
		return emu_reply_bad_field(out, "page_token", "invalid pageToken '%s': pass the "
					   "nextPageToken of the previous page", pt);
	}
	page = json_object_new_array();
	for (size_t i = (size_t) start; i < n && i < (size_t) (start + size); i++)
		json_object_array_add(page, emu_cluster_view(json_object_array_get_idx(all, i)));
	res = json_object_new_object();
	json_object_object_add(res, "model_development_clusters", page);
	if ((size_t) (start + size) < n) {
		snprintf(next, sizeof(next), "%ld", start + size);
		json_object_object_add(res, "next_page_token", json_object_new_string(next));
	}
	json_object_put(all);
	return emu_reply(out, 200, res);
}

static int emu_cluster_busy(json_object *cl, const char *name, struct emu_response *out)
{
	const char *st = mdc_json_get_str(cl, "state", "");

	if (!strcmp(st, "RUNNING") || !strcmp(st, "ERROR"))
		return 0;
	emu_reply_error(out, "ABORTED", "model development cluster '%s' is %s: another operation "
			"is in progress; wait for it to finish and retry", name, st);
	return 1;
}

/* C11: what recreating the pools means, for the operation's progressMessage. */
static void emu_recreate_message(const json_object *cl, const struct mdc_strv *pools,
				 struct mdc_buf *msg)
{
	const char *login = mdc_json_get_str(mdc_json_get_path(cl, "orchestrator_spec.slurm_spec"),
					     "login_node_pool_id", "");

	mdc_buf_adds(msg, "updating model development cluster");
	for (size_t i = 0; i < pools->n; i++) {
		if (!strcmp(pools->v[i], login))
			mdc_buf_addf(msg, "; recreating login node pool '%s' on a new image: active "
				     "SSH sessions end and the login node's boot disk is discarded",
				     pools->v[i]);
		else
			mdc_buf_addf(msg, "; recreating node pool '%s' on a new image: its compute "
				     "nodes are drained and replaced", pools->v[i]);
	}
}

/* VM_DELETION events at NOW, the operation's create time: clients count
 * the events since it (mdc_plan_op_recreated) */
static void emu_add_events(json_object *cl, const json_object *old, const struct mdc_strv *pools,
			   const char *now)
{
	json_object *old_events = mdc_json_get_arr(cl, "cluster_events"), *events;

	if (!pools->n)
		return;
	/* a new list: the old one is shared with the stored cluster */
	events = json_object_new_array();
	for (size_t i = 0; events && old_events && i < json_object_array_length(old_events); i++)
		json_object_array_add(events, json_object_get(json_object_array_get_idx(old_events, i)));
	if (!events || mdc_json_set(cl, "cluster_events", events))
		return;
	for (size_t i = 0; i < pools->n; i++) {
		json_object *ev = json_object_new_object();
		const char *from = "", *to = "";
		json_object *op = mdc_json_get_arr(old, "node_pools"), *np = mdc_json_get_arr(cl, "node_pools");

		for (size_t j = 0; op && j < json_object_array_length(op); j++)
			if (!strcmp(mdc_json_get_str(json_object_array_get_idx(op, j), "id", ""), pools->v[i]))
				from = mdc_json_get_str(json_object_array_get_idx(op, j), "node_image", "");
		for (size_t j = 0; np && j < json_object_array_length(np); j++)
			if (!strcmp(mdc_json_get_str(json_object_array_get_idx(np, j), "id", ""), pools->v[i]))
				to = mdc_json_get_str(json_object_array_get_idx(np, j), "node_image", "");
		json_object_object_add(ev, "event_type", json_object_new_string("VM_DELETION"));
		json_object_object_add(ev, "node_pool_id", json_object_new_string(pools->v[i]));
		json_object_object_add(ev, "event_time", json_object_new_string(now));
		{
			char desc[600];

			snprintf(desc, sizeof(desc), "node pool '%s' recreated: image '%s' -> '%s'",
				 pools->v[i], from, to);
			/* event_message is the service's field; description and
			 * node_pool_id are the emulator's own (older clients) */
			json_object_object_add(ev, "event_message", json_object_new_string(desc));
			json_object_object_add(ev, "description", json_object_new_string(desc));
		}
		json_object_array_add(events, ev);
	}
}

/* The published resource's immutable fields of a node pool that the
 * update keeps (same id) stay as they were; 1 if answered.  (The
 * cluster's own immutable fields cannot be named in an updateMask, and
 * emu_fixed_fields guards them without one.) */
static int emu_immutable_changed(const json_object *cur, const json_object *next,
				 struct emu_response *out)
{
	json_object *old = mdc_json_get_arr(cur, "node_pools"), *np = mdc_json_get_arr(next, "node_pools");
	const struct mdc_schema_field *f;

	for (size_t i = 0; np && old && i < json_object_array_length(np); i++) {
		json_object *p = json_object_array_get_idx(np, i), *was = NULL;
		const char *id = mdc_json_get_str(p, "id", "");

		for (size_t j = 0; !was && j < json_object_array_length(old); j++)
			if (!strcmp(mdc_json_get_str(json_object_array_get_idx(old, j), "id", ""), id))
				was = json_object_array_get_idx(old, j);
		/* a pool's own fields, one level down: an immutable message is
		 * compared whole */
		for (size_t k = 0; was && (f = mdc_schema_at(k)); k++) {
			const char *sub = f->path + strlen("node_pools.");
			json_object *a, *b;
			char field[300];

			if (strncmp(f->path, "node_pools.", 11) || strchr(sub, '.') ||
			    !(f->flags & MDC_SCHEMA_IMMUTABLE) || (f->flags & MDC_SCHEMA_OUTPUT))
				continue;
			a = mdc_json_get(was, sub);
			b = mdc_json_get(p, sub);
			if (a ? b && mdc_json_equal(a, b) : !b)
				continue;
			snprintf(field, sizeof(field), "node_pools[%zu].%s", i, sub);
			emu_reply_found_errors(out, field, "node pool '%s': %s cannot be changed after "
					       "the pool is created; create a new node pool instead", id, sub);
			return 1;
		}
	}
	return 0;
}

static int emu_cluster_patch(struct emu *e, struct emu_request *r, const char *parent,
			     const char *name, struct emu_response *out)
{
	const char *mask_s = emu_query(r, "update_mask"), *mode_s = emu_query(r, "update_mode");
	struct mdc_strv mask = MDC_STRV_INIT;
	struct mdc_patch_result res = { 0 };
	struct mdc_buf msg = MDC_BUF_INIT;
	struct mdc_images im;
	struct mdc_ctx ctx;
	json_object *cl = emu_store_get(e, "cluster", name), *final, *op;
	int mode;
	char now[40], op_parent[600];

	if (!mask_s)
		mask_s = emu_query(r, "updateMask");
	if (!mode_s)
		mode_s = emu_query(r, "updateMode");
	if (!cl)
		return emu_reply_error(out, "NOT_FOUND", "model development cluster '%s' not found", name);
	if (emu_cluster_busy(cl, name, out))
		return 0;
	mode = mdc_mode_parse(mode_s);
	if (mode < 0)
		return emu_reply_found_errors(out, "update_mode", "invalid updateMode '%s': expected "
					   "UPDATE_MODE_UNSPECIFIED, USER_ONLY or USER_AND_SERVICE", mode_s);
	if (!r->body || !json_object_is_type(r->body, json_type_object))
		return emu_reply_found_errors(out, "model_development_cluster",
					      "the request body must be a ModelDevelopmentCluster object");
	mdc_ctx_clear(&ctx);
	if (mask_s && *mask_s && mdc_rules_parse_mask(mask_s, &mask, &ctx)) {
		emu_reply_ctx(out, &ctx);
		goto out;
	}
	if (!(mask_s && *mask_s) && emu_fixed_fields(cl, r->body, "", out))
		goto out;
	emu_images(e, &im);
	/* the result shares with CL and the body: both are released under
	 * the lock (emu_access) and neither is changed below its top level */
	if (mdc_rules_apply_patch_shared(cl, r->body, mask_s && *mask_s ? &mask : NULL,
					 (enum mdc_update_mode) mode, &im, &res, &ctx)) {
		emu_reply_ctx(out, &ctx);
		goto out;
	}
	if (emu_immutable_changed(cl, res.cluster, out))
		goto out;
	if (emu_release_refuses(e, res.cluster, out))
		goto out;
	{
		struct mdc_schema_result sr;

		/* what the update leaves must still have the published
		 * resource's required fields (a pool without machine spec, a
		 * cleared login pool) */
		if (mdc_schema_check_ex(res.cluster, NULL, MDC_SCHEMA_OUTPUT_IGNORED |
					MDC_SCHEMA_INTERNAL_IGNORED | MDC_SCHEMA_CREATE, &sr, &ctx)) {
			emu_reply_schema_found(out, &sr, &ctx);
			goto out;
		}
	}
	final = res.cluster;
	res.cluster = NULL;
	emu_now_rfc3339(now, sizeof(now));
	mdc_json_set(final, "update_time", json_object_new_string(now));
	emu_cluster_set_state(final, "RUNNING", &res.recreated, now);
	mdc_json_del(final, EMU_NEVER_UPDATED);
	mdc_json_set(final, EMU_NODES_CHANGED, json_object_new_boolean(res.nodes_changed));
	emu_add_events(final, cl, &res.recreated, now);
	emu_recreate_message(final, &res.recreated, &msg);
	emu_cluster_keep_texts(final);
	emu_cluster_set_state(cl, "UPDATING", NULL, now);
	e->dirty = true;
	op = emu_op_start(e, &(struct emu_op_spec) {
		.parent = emu_parent_numbered(e, parent, true, op_parent, sizeof(op_parent)),
		.metadata_type = EMU_API "UpdateModelDevelopmentClusterOperationMetadata",
		.progress = mdc_buf_str(&msg),
		.kind = "cluster", .res_name = name, .final = final,
		.response_type = EMU_API "ModelDevelopmentCluster", .create_time = now,
	});
	if (!op)
		emu_reply_error(out, "INTERNAL", "out of memory");
	else
		emu_reply(out, 200, op);
out:
	mdc_patch_result_free(&res);
	mdc_strv_free(&mask);
	mdc_buf_free(&msg);
	return 0;
}

static int emu_cluster_delete(struct emu *e, const char *parent, const char *name,
			      struct emu_response *out)
{
	json_object *cl = emu_store_get(e, "cluster", name), *op;
	char op_parent[600];

	if (!cl)
		return emu_reply_error(out, "NOT_FOUND", "model development cluster '%s' not found", name);
	if (emu_cluster_busy(cl, name, out))
		return 0;
	emu_cluster_set_state(cl, "STOPPING", NULL, NULL);
	e->dirty = true;
	op = emu_op_start(e, &(struct emu_op_spec) {
		.parent = emu_parent_numbered(e, parent, true, op_parent, sizeof(op_parent)),
		.metadata_type = EMU_API "DeleteOperationMetadata",
		.progress = "deleting model development cluster",
		.kind = "cluster", .res_name = name, .delete_res = true,
	});
	if (!op)
		return emu_reply_error(out, "INTERNAL", "out of memory");
	return emu_reply(out, 200, op);
}

void emu_cluster_op_done(struct emu *e, json_object *op, bool failed)
{
	const char *name = mdc_json_get_str(op, "_res_name", "");
	json_object *cl = emu_store_get(e, "cluster", name), *resp;

	if (failed) {
		/* a create the service accepted and could not carry out keeps
		 * the cluster, in ERROR with the operation's error (a retry of
		 * the create gets ALREADY_EXISTS); an update changed nothing */
		if (cl && !strcmp(mdc_json_get_str(cl, "state", ""), "PROVISIONING")) {
			json_object *err = mdc_json_get_obj(op, "error");

			emu_cluster_set_state(cl, "ERROR", NULL, NULL);
			if (err)
				mdc_json_set(mdc_json_get_obj(cl, "cluster_status"), "error",
					     json_object_get(err));
		} else if (cl) {
			emu_cluster_set_state(cl, "RUNNING", NULL, NULL);
		}
		return;
	}
	/* the response shows what GET shows */
	if (cl && (resp = mdc_json_get_obj(op, "response"))) {
		json_object *v = emu_cluster_view(cl);

		json_object_object_add(v, "@type", json_object_new_string(EMU_API "ModelDevelopmentCluster"));
		json_object_object_add(op, "response", v);
	}
	if (cl)
		emu_sync_schedule(e, cl, mdc_json_get_bool(cl, EMU_NODES_CHANGED, false));
}

static const char *const emu_create_params[] = { "model_development_cluster_id", NULL };
static const char *const emu_list_params[] = { "page_size", "page_token", NULL };
static const char *const emu_patch_params[] = { "update_mask", "update_mode", NULL };

int emu_cluster_route(struct emu *e, struct emu_request *r, struct emu_response *out)
{
	char parent[512];
	const char *id;
	const char *const *params = NULL;
	json_object *cl;
	bool body = false;

	if (!emu_cluster_name(r->name, parent, sizeof(parent), &id))
		return emu_reply_error(out, "NOT_FOUND", "no route for %s '%s'", r->method, r->path);
	/* what the service's transcoding refuses before the method runs */
	if (!id && !strcmp(r->method, "POST"))
		params = emu_create_params, body = true;
	else if (!id && !strcmp(r->method, "GET"))
		params = emu_list_params;
	else if (id && !strcmp(r->method, "PATCH"))
		params = emu_patch_params, body = true;
	if (emu_unknown_params(r, params, out))
		return 0;
	cl = body && id && r->text ? emu_store_get(e, "cluster", r->name) : NULL;
	if (body && r->text && (cl || !r->raw_body)) {
		/* the lists sent back take the elements they did not change
		 * from the cluster, unparsed (and then shared, kept as text);
		 * the server left a PATCH's body to this parse */
		static const char *const lists[] = { "node_pools", "orchestrator_spec.slurm_spec.partitions", NULL };
		json_object *sent = NULL;
		struct mdc_ctx ctx;

		mdc_ctx_clear(&ctx);
		if (mdc_json_parse_reusing(r->text, r->text_len, cl, lists, &sent, &ctx))
			return emu_reply_error(out, "INVALID_ARGUMENT", "invalid JSON payload received: %s", ctx.msg);
		json_object_put(r->raw_body);
		r->raw_body = sent;
	}
	if (body && r->raw_body) {
		struct mdc_schema_result res;
		struct mdc_ctx ctx;

		/* the service ignores output-only fields in a request; a
		 * create's missing required fields are listed with its bad
		 * values, in one answer */
		mdc_ctx_clear(&ctx);
		if (mdc_schema_check_ex(r->raw_body, NULL, MDC_SCHEMA_OUTPUT_IGNORED |
					(id ? 0 : MDC_SCHEMA_CREATE), &res, &ctx))
			return res.transcoding ? emu_reply_transcoding(out, res.field, "%s", ctx.msg)
					       : emu_reply_schema_found(out, &res, &ctx);
		/* every name a field's own snake_case: normalising would copy
		 * the body unchanged */
		if (!res.camel && !r->body)
			r->body = json_object_get(r->raw_body);
	}
	if (r->raw_body && !r->body && !(r->body = mdc_json_normalize(r->raw_body, MDC_CASE_SNAKE)))
		return emu_reply_error(out, "INTERNAL", "out of memory");
	if (!id) {
		if (!strcmp(r->method, "POST"))
			return emu_cluster_create(e, r, parent, out);
		if (!strcmp(r->method, "GET"))
			return emu_cluster_list(e, r, parent, out);
	} else {
		if (!strcmp(r->method, "GET"))
			return emu_cluster_get(e, r->name, out);
		if (!strcmp(r->method, "PATCH"))
			return emu_cluster_patch(e, r, parent, r->name, out);
		if (!strcmp(r->method, "DELETE"))
			return emu_cluster_delete(e, parent, r->name, out);
	}
	return emu_reply_error(out, "NOT_FOUND", "method %s not allowed on '%s'", r->method, r->path);
}

/* --- /emulator/v1: test control ----------------------------------------------- */

int emu_images_route(struct emu *e, struct emu_request *r, struct emu_response *out)
{
	const char *type, *image;

	/* tests hold operations to observe UPDATING without racing the clock */
	if (!strcmp(r->path, "/emulator/v1/operations:hold") && !strcmp(r->method, "POST")) {
		json_object *res = json_object_new_object();

		e->hold_ops = mdc_json_get_bool(r->body, "hold", true);
		json_object_object_add(res, "hold", json_object_new_boolean(e->hold_ops));
		return emu_reply(out, 200, res);
	}
	if (!strcmp(r->path, "/emulator/v1/images") && !strcmp(r->method, "GET"))
		return emu_reply(out, 200, mdc_json_copy(e->images));
	if (strcmp(r->path, "/emulator/v1/images:advance") || strcmp(r->method, "POST"))
		return emu_reply_error(out, "NOT_FOUND", "no route for %s '%s'", r->method, r->path);
	type = mdc_json_get_str(r->body, "machine_type", NULL);
	image = mdc_json_get_str(r->body, "image", NULL);
	if (!type || !*type)
		return emu_reply_bad_field(out, "machine_type", "missing 'machineType' (use \"*\" for "
					   "every machine type)");
	if (!image || !*image || mdc_has_ctrl(image))
		return emu_reply_bad_field(out, "image", "missing or invalid 'image'");
	json_object_object_add(e->images, type, json_object_new_string(image));
	e->dirty = true;
	return emu_reply(out, 200, mdc_json_copy(e->images));
}
