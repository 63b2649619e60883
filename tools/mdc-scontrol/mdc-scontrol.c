/* mdc-scontrol - scontrol for a managed cluster.  Partition and node-pool
 * settings are persisted through the managed API (so they survive the
 * service's regeneration of slurm.conf) and applied to the live slurmctld
 * at once; `show config|partition|nodeset` answer from the managed spec;
 * everything else is the real scontrol, run with the same arguments. */
#include "config.h"
#include <errno.h>
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
#include "scargs.h"

static const char *progname = "mdc-scontrol";
/* Ctrl-C: the library stops its waits and requests (a second one kills) */
static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
	(void) sig;
	interrupted = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: mdc-scontrol [OPTIONS] COMMAND [Key=Value...]\n"
		"\n"
		"scontrol for a managed cluster: these commands persist through the\n"
		"managed API (they survive slurm.conf regeneration) and are applied to\n"
		"the live slurmctld at once:\n"
		"  update PartitionName=NAME Key=Value...\n"
		"  create PartitionName=NAME Nodes=NODES [Key=Value...]\n"
		"  delete PartitionName=NAME\n"
		"  update NodeName=NODES Weight=N|Features=LIST|Gres=LIST   (a whole node pool)\n"
		"These answer from the managed spec, in scontrol's format:\n"
		"  show config | show partition [NAME] | show nodeset [NAME]\n"
		"Any other command runs the real scontrol (MDC_SCONTROL or PATH).\n"
		"\n"
		"Options:\n"
		"  -o, --oneliner   one record per line (show)\n"
		"  -Q, --quiet      no notes on stderr\n"
		"  -v, --verbose    more messages on stderr\n"
		"  -h, --help       this help\n"
		"  -V, --version    version\n"
		"Other scontrol options (-a, -d, -M, -u, ...) send the command to the real\n"
		"scontrol (refused with a persistent command: it would be runtime-only).\n"
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

/* Replace this process with the real scontrol and ARGV (argv[0] is ours). */
static int pass_through(char **argv)
{
	struct mdc_ctx ctx = { 0 };
	char *prog = NULL;

	if (mdc_live_scontrol_path(&prog, &ctx))
		return fail(&ctx);
	argv[0] = prog;
	fflush(NULL);
	execv(prog, argv);
	mdc_fail(&ctx, MDC_ERR_IO, "cannot run '%s': %s", prog, strerror(errno));
	free(prog);
	return fail(&ctx);
}

/* Settings and a client, as mdcctl makes them. */
static int connect_api(struct mdc_settings *s, struct mdc_client **c, struct mdc_ctx *ctx)
{
	int rc;

	if ((rc = mdc_settings_load(s, ctx)) || (rc = mdc_settings_resolve(s, true, ctx)))
		return rc;
	return mdc_client_new(s, c, ctx);
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

static int show_partitions(json_object *cluster, const char *name, bool oneliner,
			   struct mdc_ctx *ctx)
{
	json_object *ss = slurm_spec(cluster), *parts = mdc_json_get_arr(ss, "partitions");
	const char *def = mdc_json_get_str(ss, "default_partition_id", "");
	size_t n = parts ? json_object_array_length(parts) : 0, shown = 0;
	int rc = 0;

	for (size_t i = 0; i < n && !rc; i++) {
		json_object *p = json_object_array_get_idx(parts, i);
		json_object *pools = mdc_json_get_arr(p, "node_pool_ids");
		const char *id = mdc_json_get_str(p, "id", "");
		struct mdc_kvs rec = MDC_KVS_INIT;
		struct mdc_strv ps = MDC_STRV_INIT;
		char *joined;

		if (name && strcmp(name, id))
			continue;
		for (size_t j = 0; pools && j < json_object_array_length(pools); j++)
			mdc_strv_push(&ps, json_object_get_string(json_object_array_get_idx(pools, j)));
		joined = mdc_strv_join(&ps, ",");
		if (mdc_kvs_add(&rec, "PartitionName", id) ||
		    mdc_kvs_add(&rec, "NodeSets", joined && *joined ? joined : "(null)") ||
		    mdc_kvs_add(&rec, "Default", strcmp(def, id) ? "NO" : "YES") ||
		    add_map(&rec, mdc_json_get_obj(p, "config")))
			rc = mdc_fail(ctx, MDC_ERR_NOMEM, "out of memory");
		else
			print_record(&rec, oneliner);
		shown++;
		free(joined);
		mdc_strv_free(&ps);
		mdc_kvs_free(&rec);
	}
	if (!rc && name && !shown)
		rc = mdc_fail(ctx, MDC_ERR_NOTFOUND, "partition '%s' not found in the managed spec", name);
	else if (!rc && !shown)
		printf("No partitions in the system\n");
	return rc;
}

static int show_config(json_object *cluster, struct mdc_ctx *ctx)
{
	json_object *conf = mdc_json_get_obj(slurm_spec(cluster), "config");
	struct mdc_strv keys = MDC_STRV_INIT;
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
				return mdc_fail(ctx, MDC_ERR_NOMEM, "out of memory");
		}
	}
	mdc_strv_sort(&keys);
	for (size_t i = 0; i < keys.n; i++)
		printf("%-23s = %s\n", keys.v[i],
		       mdc_json_get_str(conf, keys.v[i], ""));
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
			rc = mdc_fail(ctx, MDC_ERR_NOMEM, "out of memory");
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

static int run_show(const struct scx_cmd *cmd, bool oneliner, struct mdc_ctx *ctx)
{
	struct mdc_settings s = { 0 };
	struct mdc_client *c = NULL;
	json_object *cluster = NULL;
	int rc;

	if ((rc = connect_api(&s, &c, ctx)) || (rc = mdc_cluster_get(c, s.cluster, &cluster, ctx)))
		goto out;
	switch (cmd->verb) {
	case SCX_SHOW_CONFIG:
		rc = show_config(cluster, ctx);
		break;
	case SCX_SHOW_PART:
		rc = show_partitions(cluster, cmd->name, oneliner, ctx);
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
		return mdc_fail(ctx, MDC_ERR_NOMEM, "out of memory");
	free(live->v[0]);
	live->v[0] = verb;
	return 0;
}

/* Apply LIVE (the real scontrol words) to the running slurmctld.  The
 * emulator (or the service) regenerates and reloads on its own schedule,
 * possibly while we run: a create whose partition exists becomes an
 * update, a delete whose partition is gone is done — judged before the
 * command and, when it fails, once more after it (a reload can land in
 * between). */
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
	if (cmd->verb == SCX_DELETE_PART && !live_has_partition(cmd->name))
		return 0;
	if (cmd->verb == SCX_CREATE_PART && strcmp(live->v[0], "update") &&
	    live_has_partition(cmd->name)) {
		if ((rc = live_as_update(live, ctx)))
			return rc;
		return mdc_live_update(live->v, ctx);
	}
	return mdc_fail(ctx, first.err, "%s", first.msg);
}

static int run_persist(const struct scx_cmd *cmd, bool quiet, struct mdc_ctx *ctx)
{
	struct mdc_intent in = MDC_INTENT_INIT;
	struct mdc_strv live = MDC_STRV_INIT, notes = MDC_STRV_INIT;
	struct mdc_update_opts o = { .plan.mode = MDC_MODE_USER_ONLY };
	struct mdc_settings s = { 0 };
	struct mdc_client *c = NULL;
	json_object *op = NULL;
	int rc;

	/* everything is checked before anything is sent or applied */
	if ((rc = connect_api(&s, &c, ctx)) ||
	    (rc = scx_intent(cmd, s.slurm_conf, &in, &live, &notes, ctx)))
		goto out;
	o.lro.progress = isatty(2);
	if ((rc = mdc_update_run(c, &s, &in, &o, NULL, &op, ctx))) {
		mdc_ctx_prefix(ctx, "not persisted, and the live slurmctld was left unchanged");
		goto out;
	}
	if ((rc = apply_live(cmd, &live, ctx))) {
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
	json_object_put(op);
	mdc_client_free(c);
	mdc_settings_free(&s);
	mdc_strv_free(&live);
	mdc_strv_free(&notes);
	mdc_intent_free(&in);
	return rc;
}

/* ---------------------------------------------------------------- main */

/* scontrol's options: those taking a value, and flags.  Ours are handled;
 * the rest only matter to the real scontrol, so they pass with the command. */
static const struct { const char *s, *l; bool arg; } sc_opts[] = {
	{ "-a", "--all", false }, { "-d", "--details", false }, { "-F", "--future", false },
	{ "-M", "--clusters", true }, { "-u", "--uid", true }, { NULL, "--local", false },
	{ NULL, "--sibling", false }, { NULL, "--federation", false }, { NULL, "--hide", false },
	{ NULL, "--json", false }, { NULL, "--yaml", false },
};

/* 1 if ARG is a known pass-only option (*TAKES: it consumes the next word
 * unless written --opt=value or -Mvalue), 0 if unknown. */
static int known_opt(const char *arg, bool *takes)
{
	for (size_t i = 0; i < sizeof(sc_opts) / sizeof(sc_opts[0]); i++) {
		const char *sh = sc_opts[i].s, *lo = sc_opts[i].l;
		size_t ll = strlen(lo);

		if ((sh && !strcmp(arg, sh)) || !strcmp(arg, lo)) {
			*takes = sc_opts[i].arg;
			return 1;
		}
		/* --clusters=X, -MX */
		if (sc_opts[i].arg && ((!strncmp(arg, lo, ll) && arg[ll] == '=') ||
				       (sh && !strncmp(arg, sh, 2) && arg[2]))) {
			*takes = false;
			return 1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct mdc_ctx ctx = { 0 };
	struct scx_cmd cmd;
	bool oneliner = false, quiet = false;
	const char *other_opt = NULL;
	int i, rc;

	mdc_log_init(progname);
	/* it may hold a token: no core file, no ptrace by the same user */
	if (mdc_no_core_dumps(NULL))
		fprintf(stderr, "%s: warning: cannot disable core dumps\n", progname);
	{
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_sigint;
		sa.sa_flags = SA_RESETHAND;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGINT, &sa, NULL);
		mdc_intr_watch(&interrupted);
	}
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		const char *a = argv[i];
		bool takes = false;

		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return finish(0);
		}
		if (!strcmp(a, "-V") || !strcmp(a, "--version")) {
			printf("%s (%s) %s\n", progname, PACKAGE_NAME, PACKAGE_VERSION);
			return finish(0);
		}
		if (!strcmp(a, "-o") || !strcmp(a, "--oneliner"))
			oneliner = true;
		else if (!strcmp(a, "-Q") || !strcmp(a, "--quiet"))
			quiet = true;
		else if (!strcmp(a, "-v") || !strcmp(a, "--verbose"))
			mdc_log_set_level(MDC_LOG_DEBUG);
		else if (known_opt(a, &takes)) {
			other_opt = other_opt ? other_opt : a;
			i += takes;
		} else {
			fprintf(stderr, "%s: error: unknown option '%s'\nTry '%s --help'.\n",
				progname, a, progname);
			return mdc_exit_code(MDC_ERR_USAGE);
		}
	}
	if (i >= argc) {
		usage(stderr);
		return mdc_exit_code(MDC_ERR_USAGE);
	}
	if ((rc = scx_parse(argc - i, argv + i, &cmd, &ctx)))
		return fail(&ctx);
	/* -M another cluster, --json...: only the real scontrol knows them.
	 * A persistent command must not silently become a runtime one. */
	if (other_opt && cmd.verb >= SCX_UPDATE_PART && cmd.verb <= SCX_UPDATE_NODES) {
		fprintf(stderr, "%s: error: scontrol's option '%s' does not go with a persistent %s: drop it, or use scontrol for a runtime-only change\n",
			progname, other_opt, scx_verb_name(cmd.verb));
		scx_cmd_free(&cmd);
		return mdc_exit_code(MDC_ERR_USAGE);
	}
	if (cmd.verb == SCX_PASS || other_opt) {
		scx_cmd_free(&cmd);
		return pass_through(argv);
	}
	mdc_debug("%s %s", scx_verb_name(cmd.verb), cmd.name ? cmd.name : "");
	if (cmd.verb >= SCX_SHOW_CONFIG)
		rc = run_show(&cmd, oneliner, &ctx);
	else
		rc = run_persist(&cmd, quiet, &ctx);
	scx_cmd_free(&cmd);
	return finish(rc ? fail(&ctx) : 0);
}
