/* mdc-scontrol - scontrol for a managed cluster.  Its words are read as
 * scontrol reads them (scargs.c).  Partition and node-pool settings are
 * persisted through the managed API (so they survive the service's
 * regeneration of slurm.conf) and applied to the live slurmctld at once;
 * `show config|partition|nodeset` answer from the managed spec, in the
 * live slurmctld's spelling, marking what is managed and what is live
 * only; everything else is the real scontrol, run with the same
 * arguments (node state with a note that it is runtime-only). */
#include "config.h"
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include "mdc_client.h"
#include "mdc_json.h"
#include "mdc_live.h"
#include "mdc_log.h"
#include "mdc_proc.h"
#include "mdc_slurmcheck.h"
#include "mdc_update.h"
#include "mdc_value.h"
#include "sc_release.h"
#include "mdc_updopt.h"
#include "scargs.h"
#include "scintent.h"

static const char *progname = "mdc-scontrol";
/* Ctrl-C: the library stops its waits and requests (a second one kills) */
static volatile sig_atomic_t interrupted;

static void usage(FILE *f)
{
	fprintf(f,
		"usage: mdc-scontrol [OPTIONS] COMMAND [Key=Value...]\n"
		"\n"
		"scontrol for a managed cluster.  Commands and keys are read as scontrol\n"
		"reads them (any case, abbreviated as far as scontrol allows: part=, MaxT=).\n"
		"These persist through the managed API (they survive slurm.conf\n"
		"regeneration) and are applied to the live slurmctld at once:\n"
		"  update PartitionName=NAME Key=Value...      (State= too)\n"
		"  create PartitionName=NAME Nodes=NODES [Key=Value...]\n"
		"  delete PartitionName=NAME                   (refused while jobs are in it)\n"
		"  update NodeName=NODES Weight=|Features=|Gres=|CpuBind=   (a whole node pool)\n"
		"These answer from the managed spec and the live slurmctld, in scontrol's\n"
		"format, with MdcManaged= (what the spec sets) and MdcLiveOnly= (what the\n"
		"next regeneration would reset):\n"
		"  show config | show partition [NAME] | show nodeset [NAME]\n"
		"Node state (update NodeName=... State=|Reason=...) is runtime: it runs the\n"
		"real scontrol, with a note.  Any other command runs the real scontrol\n"
		"(MDC_SCONTROL or PATH) with the same arguments.\n"
		"\n"
		"Options:\n"
		"  -o, --oneliner   one record per line (show)\n"
		"  -Q, --quiet      no notes on stderr\n"
		"  -v, --verbose    more messages on stderr\n"
		"      --force      delete a partition even though jobs are in it (they end)\n"
		"  -h, --help       this help\n"
		"  -V, --version    version\n"
		"The update options of mdcctl, for the persistent commands (--async is\n"
		"refused: the live slurmctld is changed after the operation):\n");
	/* mdcctl's list without --async, which is refused here */
	for (const char *l = mdc_updopt_help, *nl; *l; l = nl + 1) {
		nl = strchr(l, '\n');
		if (!nl)
			break;
		if (!strstr(l, "--async") || strstr(l, "--async") > nl)
			fprintf(f, "%.*s\n", (int) (nl - l), l);
	}
	fprintf(f,
		"scontrol's other options (-a, -d, -F, -u, --hide, --local, ...) go to the\n"
		"real scontrol; -M/--clusters (or SLURM_CLUSTERS) is refused with a\n"
		"persistent command: the setting would reach another cluster's slurmctld only.\n"
		"Environment: MDC_ENDPOINT, MDC_CLUSTER, MDC_CONF, SLURM_CONF, MDC_SCONTROL.\n"
		"See mdc-scontrol(1).\n");
}

static int fail(const struct mdc_ctx *ctx)
{
	fprintf(stderr, "%s: error: %s\n", progname, ctx->msg[0] ? ctx->msg : mdc_strerror(ctx->err));
	return mdc_exit_code(ctx->err);
}

static int finish(int rc)
{
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "%s: error: cannot write output: %s\n", progname, strerror(errno));
		return rc ? rc : 1;
	}
	return rc;
}

/* The real scontrol with ARGV (argv[0] is ours): its output, its exit
 * code; a run that slurmctld's reconfigure dropped is run again. */
static int pass_through(char **argv)
{
	struct mdc_ctx ctx = { 0 };
	struct mdc_buf err = MDC_BUF_INIT;
	int status;

	fflush(NULL);
	if (mdc_live_pass(argv + 1, &err, &status, &ctx)) {
		mdc_buf_free(&err);
		return fail(&ctx);
	}
	fwrite(mdc_buf_str(&err), 1, err.len, stderr);
	mdc_buf_free(&err);
	return status;
}

/* Settings and a client, as mdcctl makes them. */
static int connect_api(struct mdc_settings *s, struct mdc_client **c, struct mdc_ctx *ctx)
{
	int rc;

	if ((rc = mdc_settings_load(s, ctx)) || (rc = mdc_settings_resolve(s, true, ctx)) ||
	    (rc = mdc_client_new(s, c, ctx)))
		return rc;
	/* a GET retried for half a minute: a terminal sees why */
	mdc_client_set_retry_notices(*c, isatty(2));
	return 0;
}

/* ---------------------------------------------------------------- show */

static json_object *slurm_spec(json_object *cluster)
{
	return mdc_json_get_path(cluster, "orchestrator_spec.slurm_spec");
}

/* scontrol's record layout: "Name=X" then indented pairs, or one line. */
static void print_record(const struct mdc_kvs *rec, bool oneliner)
{
	for (size_t i = 0; i < rec->n; i++) {
		if (i == 0)
			printf("%s=%s", rec->v[i].key, rec->v[i].value);
		else if (oneliner)
			printf(" %s=%s", rec->v[i].key, rec->v[i].value);
		else
			printf("%s%s=%s", i % 4 == 1 ? "\n   " : " ", rec->v[i].key, rec->v[i].value);
	}
	printf(oneliner ? "\n" : "\n\n");
}

/* Append each pair of the config map CONF to REC. */
static int add_map(struct mdc_kvs *rec, json_object *conf)
{
	if (!conf || !json_object_is_type(conf, json_type_object))
		return 0;
	json_object_object_foreach(conf, k, v) {
		if (mdc_kvs_add(rec, k, json_object_get_string(v)))
			return MDC_ERR_NOMEM;
	}
	return 0;
}

/* A time in minutes (the spec's text) as scontrol prints it: 01:28:00,
 * 2-00:00:00, UNLIMITED, NONE; other text unchanged. */
static void format_time(const char *v, char *out, size_t outsz)
{
	long long sec;

	/* NONE is how scontrol shows an unset time, not a time Slurm reads */
	if (!strcasecmp(v, "NONE") || !mdc_value_time_s(v, &sec)) {
		snprintf(out, outsz, "%s", strcasecmp(v, "NONE") ? v : "NONE");
		return;
	}
	if (sec == -1) {
		snprintf(out, outsz, "UNLIMITED");
		return;
	}
	if (sec >= 86400)
		snprintf(out, outsz, "%lld-%02lld:%02lld:%02lld", sec / 86400, sec % 86400 / 3600,
			 sec % 3600 / 60, sec % 60);
	else
		snprintf(out, outsz, "%02lld:%02lld:%02lld", sec / 3600, sec % 3600 / 60, sec % 60);
}

static bool is_time_key(const char *key)
{
	return !strcmp(key, "MaxTime") || !strcmp(key, "DefaultTime");
}

/* "MdcManaged=A,B MdcLiveOnly=C": which settings of partition P (spec
 * entry, may be NULL) the spec holds, and which live values (LIVE, may be
 * NULL) differ from them (the next regeneration resets those). */
static int part_marks(json_object *p, bool is_default, const struct mdc_kvs *live,
		      struct mdc_buf *out)
{
	json_object *conf = mdc_json_get_obj(p, "config");
	struct mdc_strv managed = MDC_STRV_INIT, drift = MDC_STRV_INIT;
	char *m = NULL, *d = NULL;
	int rc = 0;

	if (!p) {
		rc = mdc_buf_adds(out, "MdcManaged=NONE MdcLiveOnly=ALL");
		goto out;
	}
	rc = mdc_strv_push(&managed, "Nodes") || (is_default && mdc_strv_push(&managed, "Default"));
	if (conf) {
		json_object_object_foreach(conf, k, v) {
			const char *lv = live ? mdc_kvs_get(live, k) : NULL;

			rc = rc || mdc_strv_push(&managed, k);
			if (lv && !mdc_live_value_eq(k, lv, json_object_get_string(v)))
				rc = rc || mdc_strv_push(&drift, k);
		}
	}
	if (live && mdc_kvs_get(live, "Default") &&
	    !mdc_live_value_eq("Default", mdc_kvs_get(live, "Default"), is_default ? "YES" : "NO"))
		rc = rc || mdc_strv_push(&drift, "Default");
	if (rc || !(m = mdc_strv_join(&managed, ",")) || !(d = mdc_strv_join(&drift, ","))) {
		rc = MDC_ERR_NOMEM;
		goto out;
	}
	rc = mdc_buf_addf(out, "MdcManaged=%s", m);
	if (!rc && !live)
		rc = mdc_buf_adds(out, " MdcLive=NO");
	else if (!rc && drift.n)
		rc = mdc_buf_addf(out, " MdcLiveOnly=%s", d);
out:
	free(m);
	free(d);
	mdc_strv_free(&managed);
	mdc_strv_free(&drift);
	return rc;
}

/* Print scontrol's own record of live partition NAME, then MARKS. */
static int print_live_part(const char *name, bool oneliner, const char *marks, struct mdc_ctx *ctx)
{
	char *args[] = { "show", "partition", (char *) name, oneliner ? "--oneliner" : NULL, NULL };
	struct mdc_buf b = MDC_BUF_INIT;
	char *text;
	size_t n;
	int rc;

	if ((rc = mdc_live_check(args, &b, ctx)))
		goto out;
	text = (char *) mdc_buf_str(&b);
	n = strlen(text);
	while (n && text[n - 1] == '\n')
		text[--n] = '\0';
	if (oneliner)
		printf("%s %s\n", text, marks);
	else
		printf("%s\n   %s\n\n", text, marks);
out:
	mdc_buf_free(&b);
	return rc;
}

static int show_partitions(json_object *cluster, const char *name, bool oneliner, bool quiet,
			   struct mdc_ctx *ctx)
{
	json_object *ss = slurm_spec(cluster), *parts = mdc_json_get_arr(ss, "partitions");
	const char *def = mdc_json_get_str(ss, "default_partition_id", "");
	size_t n = parts ? json_object_array_length(parts) : 0, shown = 0;
	struct mdc_recs live = MDC_RECS_INIT;
	struct mdc_ctx lctx = { 0 };
	struct mdc_buf marks = MDC_BUF_INIT;
	bool have_live;
	int rc = 0;

	/* the live slurmctld prints the values; the spec says what it holds */
	have_live = !mdc_live_partitions(&live, &lctx);
	if (!have_live && !quiet)
		fprintf(stderr, "%s: note: the live slurmctld did not answer (%s): showing the managed spec only\n",
			progname, lctx.msg);
	for (size_t i = 0; i < n && !rc; i++) {
		json_object *p = json_object_array_get_idx(parts, i);
		json_object *pools = mdc_json_get_arr(p, "node_pool_ids");
		const char *id = mdc_json_get_str(p, "id", "");
		const struct mdc_kvs *lrec = have_live ? mdc_recs_find(&live, id) : NULL;
		struct mdc_kvs rec = MDC_KVS_INIT;
		struct mdc_strv ps = MDC_STRV_INIT;
		json_object *conf = mdc_json_get_obj(p, "config");
		char *joined;

		if (name && strcmp(name, id))
			continue;
		shown++;
		mdc_buf_reset(&marks);
		if (part_marks(p, !strcmp(def, id), lrec, &marks)) {
			rc = mdc_nomem(ctx);
			break;
		}
		if (lrec) {
			rc = print_live_part(id, oneliner, mdc_buf_str(&marks), ctx);
			continue;
		}
		/* not live (yet): the spec's values, times as scontrol prints them */
		for (size_t j = 0; pools && j < json_object_array_length(pools); j++)
			mdc_strv_push(&ps, json_object_get_string(json_object_array_get_idx(pools, j)));
		joined = mdc_strv_join(&ps, ",");
		rc = mdc_kvs_add(&rec, "PartitionName", id) ||
		     mdc_kvs_add(&rec, "Nodes", joined && *joined ? joined : "(null)") ||
		     mdc_kvs_add(&rec, "Default", strcmp(def, id) ? "NO" : "YES");
		if (conf) {
			json_object_object_foreach(conf, k, v) {
				char tv[64];
				const char *val = json_object_get_string(v);

				if (is_time_key(k)) {
					format_time(val, tv, sizeof(tv));
					val = tv;
				}
				rc = rc || mdc_kvs_add(&rec, k, val);
			}
		}
		rc = rc || mdc_kvs_add(&rec, "MdcManaged", strchr(mdc_buf_str(&marks), '=') + 1);
		if (rc) {
			rc = mdc_nomem(ctx);
		} else {
			/* the " MdcLive=NO" tail of the marks is a pair of its own */
			char *sp = strchr(rec.v[rec.n - 1].value, ' ');

			if (sp)
				*sp = '\0';
			if (mdc_kvs_add(&rec, "MdcLive", "NO"))
				rc = mdc_nomem(ctx);
			else
				print_record(&rec, oneliner);
		}
		free(joined);
		mdc_strv_free(&ps);
		mdc_kvs_free(&rec);
	}
	/* partitions only the live slurmctld has: the next regeneration drops them */
	for (size_t i = 0; have_live && i < live.n && !rc; i++) {
		const char *id = live.v[i].n ? live.v[i].v[0].value : "";
		bool in_spec = false;

		for (size_t j = 0; j < n; j++)
			in_spec |= !strcmp(id, mdc_json_get_str(json_object_array_get_idx(parts, j), "id", ""));
		if (in_spec || (name && strcmp(name, id)))
			continue;
		shown++;
		rc = print_live_part(id, oneliner, "MdcManaged=NONE MdcLiveOnly=ALL", ctx);
	}
	if (!rc && name && !shown)
		rc = mdc_fail(ctx, MDC_ERR_NOTFOUND, "Partition %s not found (neither in the managed spec nor live)", name);
	else if (!rc && !shown)
		printf("No partitions in the system\n");
	mdc_buf_free(&marks);
	mdc_recs_free(&live);
	return rc;
}

static int show_config(json_object *cluster, bool quiet, struct mdc_ctx *ctx)
{
	json_object *conf = mdc_json_get_obj(slurm_spec(cluster), "config");
	struct mdc_strv keys = MDC_STRV_INIT;
	struct mdc_kvs live = MDC_KVS_INIT;
	struct mdc_ctx lctx = { 0 };
	bool have_live;
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;

	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", localtime_r(&now, &tm));
	printf("Configuration data as of %s (managed spec: %s)\n", stamp,
	       mdc_json_get_str(cluster, "name", "?"));
	if (conf) {
		json_object_object_foreach(conf, k, v) {
			(void) v;
			if (mdc_strv_push(&keys, k))
				return mdc_nomem(ctx);
		}
	}
	mdc_strv_sort(&keys);
	/* the live slurmctld's spelling of an equal value (00:10:00 for 10);
	 * a live value that differs is runtime: the regeneration resets it */
	have_live = !mdc_live_config(&live, &lctx);
	if (!have_live && !quiet)
		fprintf(stderr, "%s: note: the live slurmctld did not answer (%s): showing the managed spec only\n",
			progname, lctx.msg);
	for (size_t i = 0; i < keys.n; i++) {
		const char *want = mdc_json_get_str(conf, keys.v[i], "");
		const char *lv = have_live ? mdc_kvs_get(&live, keys.v[i]) : NULL;

		if (lv && mdc_live_value_eq(keys.v[i], lv, want))
			printf("%-23s = %s\n", keys.v[i], lv);
		else if (lv)
			printf("%-23s = %s (MdcLiveOnly: live %s until the next regeneration)\n",
			       keys.v[i], want, lv);
		else
			printf("%-23s = %s\n", keys.v[i], want);
	}
	mdc_kvs_free(&live);
	mdc_strv_free(&keys);
	return 0;
}

static int show_nodesets(json_object *cluster, const char *conf_path, const char *name,
			 bool oneliner, struct mdc_ctx *ctx)
{
	json_object *sets = mdc_json_get_arr(slurm_spec(cluster), "node_sets");
	struct mdc_recs lines = MDC_RECS_INIT;
	struct mdc_strv ids = MDC_STRV_INIT;
	char *text = NULL;
	size_t shown = 0;
	int rc;

	/* pools: the live slurm.conf's NodeSet lines (the nodes), plus any
	 * node_sets entry (the settings) */
	if ((rc = mdc_read_file(conf_path, &text, NULL, ctx)) ||
	    (rc = mdc_live_parse_nodesets(text, &lines, ctx)))
		goto out;
	for (size_t i = 0; i < lines.n; i++)
		mdc_strv_push(&ids, lines.v[i].v[0].value);
	for (size_t i = 0; sets && i < json_object_array_length(sets); i++) {
		const char *id = mdc_json_get_str(json_object_array_get_idx(sets, i), "node_pool_id", "");

		if (!mdc_strv_has(&ids, id))
			mdc_strv_push(&ids, id);
	}
	for (size_t i = 0; i < ids.n; i++) {
		const struct mdc_kvs *line = mdc_recs_find(&lines, ids.v[i]);
		struct mdc_kvs rec = MDC_KVS_INIT;
		json_object *conf = NULL;

		if (name && strcmp(name, ids.v[i]))
			continue;
		for (size_t j = 0; sets && j < json_object_array_length(sets); j++) {
			json_object *e = json_object_array_get_idx(sets, j);

			if (!strcmp(mdc_json_get_str(e, "node_pool_id", ""), ids.v[i]))
				conf = mdc_json_get_obj(e, "config");
		}
		if (mdc_kvs_add(&rec, "NodeSet", ids.v[i]) ||
		    mdc_kvs_add(&rec, "Nodes", line && mdc_kvs_get(line, "Nodes") ?
				mdc_kvs_get(line, "Nodes") : "(null)") ||
		    add_map(&rec, conf)) {
			mdc_kvs_free(&rec);
			rc = mdc_nomem(ctx);
			goto out;
		}
		print_record(&rec, oneliner);
		mdc_kvs_free(&rec);
		shown++;
	}
	if (name && !shown)
		rc = mdc_fail(ctx, MDC_ERR_NOTFOUND, "nodeset '%s' not found", name);
out:
	mdc_strv_free(&ids);
	mdc_recs_free(&lines);
	free(text);
	return rc;
}

static int run_show(const struct scx_cmd *cmd, bool oneliner, bool quiet, struct mdc_ctx *ctx)
{
	struct mdc_settings s = { 0 };
	struct mdc_client *c = NULL;
	json_object *cluster = NULL;
	int rc;

	if ((rc = connect_api(&s, &c, ctx)) || (rc = mdc_cluster_get(c, s.cluster, &cluster, ctx)))
		goto out;
	switch (cmd->verb) {
	case SCX_SHOW_CONFIG:
		rc = show_config(cluster, quiet, ctx);
		break;
	case SCX_SHOW_PART:
		rc = show_partitions(cluster, cmd->name, oneliner, quiet, ctx);
		break;
	default:
		rc = show_nodesets(cluster, s.slurm_conf, cmd->name, oneliner, ctx);
		break;
	}
out:
	json_object_put(cluster);
	mdc_client_free(c);
	mdc_settings_free(&s);
	return rc;
}

/* ---------------------------------------------------------------- persist */

/* Is partition NAME known to the live slurmctld? */
static bool live_has_partition(const char *name)
{
	struct mdc_recs recs = MDC_RECS_INIT;
	struct mdc_ctx ctx = { 0 };
	bool has = !mdc_live_partitions(&recs, &ctx) && mdc_recs_find(&recs, name);

	mdc_recs_free(&recs);
	return has;
}

/* Make LIVE an update of an existing partition (a create that a reload
 * already carried out). */
static int live_as_update(struct mdc_strv *live, struct mdc_ctx *ctx)
{
	char *verb = strdup("update");

	if (!verb)
		return mdc_nomem(ctx);
	free(live->v[0]);
	live->v[0] = verb;
	return 0;
}

/* Does the live slurmctld already hold every setting of CMD?  A reload
 * of the regenerated slurm.conf may have applied it before (or while) our
 * own update ran: then that update's failure is no failure. */
static bool live_has_settings(const struct scx_cmd *cmd)
{
	struct mdc_recs recs = MDC_RECS_INIT;
	struct mdc_ctx ctx = { 0 };
	const struct mdc_kvs *rec = NULL;
	bool all = true;
	int rc;

	rc = cmd->verb == SCX_UPDATE_NODES ? mdc_live_nodes(cmd->name, &recs, &ctx) :
	     mdc_live_partitions(&recs, &ctx);
	if (rc)
		return false;
	for (size_t r = 0; r < recs.n; r++) {
		rec = cmd->verb == SCX_UPDATE_NODES ? &recs.v[r] : mdc_recs_find(&recs, cmd->name);
		if (!rec) {
			all = false;
			break;
		}
		for (size_t i = 0; i < cmd->kv.n; i++) {
			const char *key = cmd->kv.v[i].key, *lv;

			/* scontrol shows Features as AvailableFeatures; Nodes as
			 * hosts, not pools: not compared */
			if (!strcmp(key, "Nodes"))
				continue;
			lv = mdc_kvs_get(rec, !strcmp(key, "Features") ? "AvailableFeatures" : key);
			if (!lv || !mdc_live_value_eq(key, lv, cmd->kv.v[i].value))
				all = false;
		}
		if (cmd->verb != SCX_UPDATE_NODES)
			break;
	}
	mdc_recs_free(&recs);
	return all && rec;
}

/* Apply LIVE (the real scontrol words) to the running slurmctld.  The
 * emulator (or the service) regenerates and reloads on its own schedule,
 * possibly while we run: a create whose partition exists becomes an
 * update, a delete whose partition is gone is done, an update whose
 * values are already live is done -- judged before the command and, when
 * it fails, again for a few seconds after it (a reload can land in
 * between: "Active features not subset" while the old features are still
 * active, then the reload brings the new ones). */
static int apply_live(const struct scx_cmd *cmd, struct mdc_strv *live, struct mdc_ctx *ctx)
{
	struct mdc_ctx first = { 0 };
	int rc;

	if (cmd->verb == SCX_DELETE_PART && !live_has_partition(cmd->name))
		return 0;
	if (cmd->verb == SCX_CREATE_PART && live_has_partition(cmd->name) &&
	    (rc = live_as_update(live, ctx)))
		return rc;
	if (!mdc_live_update(live->v, &first))
		return 0;
	/* without a NodeFeatures plugin slurmctld makes the active features
	 * the available ones, but first checks the OLD active ones against the
	 * new available ones: say both (scontrol's own remedy) */
	if (cmd->verb == SCX_UPDATE_NODES && mdc_kvs_get(&cmd->kv, "Features") &&
	    strstr(first.msg, "subset")) {
		struct mdc_ctx second = { 0 };

		if ((rc = mdc_strv_pushf(live, "ActiveFeatures=%s", mdc_kvs_get(&cmd->kv, "Features"))))
			return mdc_nomem(ctx);
		if (!mdc_live_update(live->v, &second))
			return 0;
	}
	/* no slurmctld answered: no reload can land either */
	if (strstr(first.msg, "Unable to contact"))
		return mdc_fail(ctx, first.err, "%s", first.msg);
	for (int tries = 0; tries < 20; tries++) {
		if (cmd->verb == SCX_DELETE_PART && !live_has_partition(cmd->name))
			return 0;
		if ((cmd->verb == SCX_UPDATE_PART || cmd->verb == SCX_UPDATE_NODES) &&
		    live_has_settings(cmd))
			return 0;
		if (cmd->verb == SCX_CREATE_PART && strcmp(live->v[0], "update") &&
		    live_has_partition(cmd->name)) {
			if ((rc = live_as_update(live, ctx)))
				return rc;
			return mdc_live_update(live->v, ctx);
		}
		if (cmd->verb == SCX_DELETE_PART)
			break;	/* "Partition is in use": waiting does not help */
		if (!mdc_sleep(0.5, NULL))
			return mdc_fail(ctx, MDC_ERR_INTERRUPTED, "interrupted while retrying the "
					"live update (%s)", first.msg);
	}
	return mdc_fail(ctx, first.err, "%s", first.msg);
}

/* The plan's question about jobs in a partition it removes. */
static int partition_jobs(const char *partition, struct mdc_strv *jobs, void *arg,
			  struct mdc_ctx *ctx)
{
	return mdc_live_partition_jobs(arg, partition, jobs, ctx);
}

/* ... and about jobs on the nodes of a pool it shrinks or removes. */
static int pool_jobs(const char *pool, long keep, struct mdc_strv *jobs, void *arg,
		     struct mdc_ctx *ctx)
{
	return mdc_live_pool_jobs(arg, pool, keep, jobs, ctx);
}

/* ... and about the QOS slurmctld knows. */
static int qos_list(struct mdc_strv *names, bool *have_list, bool *enforced, void *arg,
		    struct mdc_ctx *ctx)
{
	return mdc_live_qos(arg, names, have_list, enforced, ctx);
}

/* Changes that would recreate nodes are not asked about: --yes says so. */
static bool confirm_plan(const struct mdc_plan *plan, void *arg)
{
	const struct mdc_updopt *u = arg;

	return !plan->recreate.n || u->yes;
}

/* What an update that failed left behind, as the prefix of its message:
 * without an operation nothing was sent; with one the change may be on
 * its way (Ctrl-C, --timeout, a lost answer) and the live slurmctld was
 * not touched, so the next regeneration, not this command, applies it. */
static void persist_failed(const struct mdc_plan *plan, const json_object *op, int rc,
			   const struct mdc_updopt *u, struct mdc_ctx *ctx)
{
	const char *name = mdc_json_get_str(op, "name", NULL);

	if (rc == MDC_ERR_REFUSED && plan->recreate.n && !plan->refusals.n && !u->yes) {
		mdc_ctx_clear(ctx);
		mdc_fail(ctx, MDC_ERR_REFUSED, "recreating the nodes of node pool '%s' needs --yes",
			 plan->recreate.v[0]);
	}
	if (!op || rc == MDC_ERR_OPFAILED)
		mdc_ctx_prefix(ctx, "not persisted, and the live slurmctld was left unchanged");
	else
		mdc_ctx_prefix(ctx, "the change was sent to the managed API (operation %s) but not "
			       "seen through; the live slurmctld was left unchanged: the next "
			       "regeneration applies it, or run the command again once the "
			       "operation is done", name ? name : "?");
}

static int run_persist(const struct scx_cmd *cmd, const struct mdc_updopt *u, bool quiet,
		       bool force, struct mdc_ctx *ctx)
{
	struct mdc_intent in = MDC_INTENT_INIT;
	struct mdc_strv live = MDC_STRV_INIT, notes = MDC_STRV_INIT;
	struct mdc_update_opts o;
	struct mdc_plan plan;
	struct mdc_settings s = { 0 };
	struct mdc_client *c = NULL;
	json_object *op = NULL;
	int rc;

	memset(&plan, 0, sizeof(plan));
	/* Slurm's check of the new slurm.conf loads its library meanwhile */
	mdc_slurmcheck_prestart();
	/* everything is checked before anything is sent or applied */
	if ((rc = connect_api(&s, &c, ctx)) ||
	    (rc = scx_intent(cmd, s.slurm_conf, &in, &live, &notes, ctx)))
		goto out;
	mdc_updopt_fill(u, &o);
	o.lro.progress = isatty(2);
	o.plan.partition_jobs = partition_jobs;
	o.plan.partition_jobs_arg = s.slurm_conf;
	o.plan.pool_jobs = pool_jobs;
	o.plan.pool_jobs_arg = s.slurm_conf;
	o.plan.qos_list = qos_list;
	o.plan.qos_list_arg = s.slurm_conf;
	o.plan.force = force;
	o.confirm = confirm_plan;
	o.confirm_arg = (void *) u;
	rc = mdc_update_run(c, &s, &in, &o, &plan, &op, ctx);
	mdc_slurmcheck_prestart_end();	/* unless the plan used it */
	if (rc) {
		persist_failed(&plan, op, rc, u, ctx);
		goto out;
	}
	for (size_t i = 0; !quiet && i < plan.warnings.n; i++)
		fprintf(stderr, "%s: warning: %s\n", progname, plan.warnings.v[i]);
	/* a Ctrl-C that came as the operation ended: stop, but say where */
	if (mdc_intr_pending(NULL)) {
		rc = mdc_fail(ctx, MDC_ERR_INTERRUPTED, "interrupted: persisted through the managed "
			      "API, but the live slurmctld was left unchanged: the next regeneration "
			      "applies it, or run the command again");
		goto out;
	}
	if ((rc = apply_live(cmd, &live, ctx))) {
		if (cmd->verb == SCX_DELETE_PART && force && rc != MDC_ERR_INTERRUPTED) {
			/* --force: the user accepted that the jobs end; slurmctld
			 * keeps the partition until the regeneration removes it */
			if (!quiet)
				fprintf(stderr, "%s: note: the live slurmctld keeps partition %s while jobs are in it (%s): the next regeneration removes it and ends them\n",
					progname, cmd->name, ctx->msg);
			mdc_ctx_clear(ctx);
			rc = 0;
			goto out;
		}
		mdc_ctx_prefix(ctx, "persisted through the managed API (the next regeneration applies it), but the live update failed");
		goto out;
	}
	for (size_t i = 0; !quiet && i < notes.n; i++)
		fprintf(stderr, "%s: note: %s\n", progname, notes.v[i]);
	if (!quiet)
		fprintf(stderr, "%s: %s %s: persisted%s and applied to the live slurmctld\n",
			progname, scx_verb_name(cmd->verb), cmd->name,
			op ? "" : " (no change needed in the managed spec)");
out:
	mdc_slurmcheck_prestart_end();
	mdc_plan_free(&plan);
	json_object_put(op);
	mdc_client_free(c);
	mdc_settings_free(&s);
	mdc_strv_free(&live);
	mdc_strv_free(&notes);
	mdc_intent_free(&in);
	return rc;
}

/* ---------------------------------------------------------------- main */

/* scontrol.c main(): the same options, read by the same getopt_long, so
 * that abbreviations (--one, --det) and permutations mean the same;
 * --force and the update options (mdc_updopt.h) are ours. */
enum { OPT_FEDR = 0x100, OPT_HIDE, OPT_LOCAL, OPT_SIBLING, OPT_FORCE };
/* The release whose scontrol syntax the keys of an update are read in:
 * the same choice as every check's (sc_release_live.h: the live scontrol
 * --version, else mdc.conf's SlurmRelease, else the build's).  A settings
 * error is reported by the command itself when it loads them again. */
static int target_release(void)
{
	struct mdc_settings s = { 0 };
	struct mdc_ctx ctx = { 0 };

	(void) mdc_settings_load(&s, &ctx);
	mdc_settings_free(&s);
	return sc_rel_target();
}

static const struct option sc_long[] = {
	{ "all", no_argument, NULL, 'a' }, { "cluster", required_argument, NULL, 'M' },
	{ "clusters", required_argument, NULL, 'M' }, { "details", no_argument, NULL, 'd' },
	{ "federation", no_argument, NULL, OPT_FEDR }, { "future", no_argument, NULL, 'F' },
	{ "help", no_argument, NULL, 'h' }, { "hide", no_argument, NULL, OPT_HIDE },
	{ "local", no_argument, NULL, OPT_LOCAL }, { "oneliner", no_argument, NULL, 'o' },
	{ "quiet", no_argument, NULL, 'Q' }, { "sibling", no_argument, NULL, OPT_SIBLING },
	{ "uid", required_argument, NULL, 'u' }, { "usage", no_argument, NULL, 'h' },
	{ "verbose", no_argument, NULL, 'v' }, { "version", no_argument, NULL, 'V' },
	{ "force", no_argument, NULL, OPT_FORCE }, MDC_UPDOPT_LONGOPTS, { NULL, 0, NULL, 0 },
};

int main(int argc, char **argv)
{
	struct mdc_ctx ctx = { 0 };
	struct mdc_updopt u = { .mode = MDC_MODE_USER_ONLY };
	struct scx_cmd cmd;
	bool oneliner = false, quiet = false, force = false, bad_opt = false;
	const char *other_cluster = getenv("SLURM_CLUSTERS");
	char **orig = calloc((size_t) argc + 1, sizeof(*orig)), *force_arg = NULL;
	const char *uopt = NULL;	/* the first update option given */
	int c, rc, n = 0, li;

	mdc_log_init(progname);
	/* it may hold a token: no core file, no ptrace by the same user */
	if (mdc_no_core_dumps(NULL))
		fprintf(stderr, "%s: warning: cannot disable core dumps\n", progname);
	if (mdc_intr_install(&interrupted, &ctx))
		return fail(&ctx);
	if (!orig) {
		fprintf(stderr, "%s: error: out of memory\n", progname);
		return 1;
	}
	/* getopt_long permutes ARGV: keep it as given for the real scontrol */
	memcpy(orig, argv, (size_t) argc * sizeof(*argv));
	opterr = 0;
	while (1) {
		if (optind < argc && !strncasecmp(argv[optind], "setdebugflags", 8))
			break;	/* scontrol's rule: "-flag" words follow it */
		li = -1;
		if ((c = getopt_long(argc, argv, "adhM:FoQu:vV", sc_long, &li)) == -1)
			break;
		switch (c) {
		case 'h':
			usage(stdout);
			free(orig);
			return finish(0);
		case 'V':
			printf("%s (%s) %s\n", progname, PACKAGE_NAME, PACKAGE_VERSION);
			free(orig);
			return finish(0);
		case 'o': oneliner = true; break;
		case 'Q': quiet = true; break;
		case 'v': mdc_log_set_level(MDC_LOG_DEBUG); break;
		case 'M': other_cluster = optarg; break;
		case OPT_FORCE: force = true; force_arg = argv[optind - 1]; break;
		case '?': bad_opt = true; break;	/* the real scontrol says what */
		default:
			if (c >= MDC_UPDOPT_MODE && c < MDC_UPDOPT_END && !uopt && li >= 0)
				uopt = sc_long[li].name;
			if (c >= MDC_UPDOPT_MODE && c < MDC_UPDOPT_END &&
			    (c == MDC_UPDOPT_ASYNC ?
			     mdc_fail(&ctx, MDC_ERR_USAGE, "--async: the live slurmctld is changed "
				      "after the operation, which mdc-scontrol waits for") :
			     mdc_updopt_set(&u, c, optarg, &ctx))) {
				free(orig);
				return fail(&ctx);
			}
			break;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "%s: error: give a command: mdc-scontrol has no interactive mode (scontrol's would make runtime-only changes)\n",
			progname);
		usage(stderr);
		free(orig);
		return mdc_exit_code(MDC_ERR_USAGE);
	}
	if ((rc = scx_parse(argc - optind, argv + optind, target_release, &cmd, &ctx))) {
		free(orig);
		return fail(&ctx);
	}
	if (!bad_opt && other_cluster && *other_cluster &&
	    cmd.verb >= SCX_UPDATE_PART && cmd.verb <= SCX_UPDATE_NODES) {
		fprintf(stderr, "%s: error: %s names another cluster ('%s'): a persistent %s would reach only its live slurmctld; drop it, or use scontrol for a runtime-only change\n",
			progname, getenv("SLURM_CLUSTERS") && other_cluster == getenv("SLURM_CLUSTERS") ?
			"SLURM_CLUSTERS" : "-M/--clusters", other_cluster, scx_verb_name(cmd.verb));
		scx_cmd_free(&cmd);
		free(orig);
		return mdc_exit_code(MDC_ERR_USAGE);
	}
	if (!bad_opt && uopt && !(cmd.verb >= SCX_UPDATE_PART && cmd.verb <= SCX_UPDATE_NODES)) {
		fprintf(stderr, "%s: error: '--%s' is for the persistent commands (update, create, delete)\n",
			progname, uopt);
		scx_cmd_free(&cmd);
		free(orig);
		return mdc_exit_code(MDC_ERR_USAGE);
	}
	if (cmd.verb == SCX_PASS || bad_opt) {
		if (cmd.note && !quiet)
			fprintf(stderr, "%s: note: %s\n", progname, cmd.note);
		scx_cmd_free(&cmd);
		/* our --force means nothing to scontrol */
		for (int i = 0; i < argc; i++)
			if (orig[i] != force_arg)
				orig[n++] = orig[i];
		orig[n] = NULL;
		return pass_through(orig);
	}
	free(orig);
	mdc_debug("%s %s", scx_verb_name(cmd.verb), cmd.name ? cmd.name : "");
	if (cmd.verb >= SCX_SHOW_CONFIG)
		rc = run_show(&cmd, oneliner, quiet, &ctx);
	else
		rc = run_persist(&cmd, &u, quiet, force, &ctx);
	scx_cmd_free(&cmd);
	return finish(rc ? fail(&ctx) : 0);
}
