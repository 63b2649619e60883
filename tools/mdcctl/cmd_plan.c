/* cmd_plan.c - render, plan, apply, edit, migrate-config: slurm.conf in,
 * spec updates out.  (owner: plan engine)
 *
 * The baseline a slurm.conf is compared with is what the spec renders
 * over the service-managed base (by default taken from the live
 * slurm.conf, see sc_render_base); the difference becomes an intent, the
 * intent a plan.  apply re-plans on a fresh read right before the PATCH
 * (mdc_update_run, C14) and verifies the result on the local slurmctld
 * (C13).
 */
#include "config.h"
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "mdc_buf.h"
#include "mdc_client.h"
#include "mdc_json.h"
#include "mdc_plan.h"
#include "mdc_run.h"
#include "mdc_slurmcheck.h"
#include "mdc_str.h"
#include "mdc_update.h"
#include "mdc_verify.h"
#include "sc_conf.h"
#include "sc_options.h"
#include "sc_release.h"
#include "sc_render.h"
#include "sc_translate.h"
#include "mdcctl.h"

/* Command options shared by render/plan/apply/edit. */
struct popts {
	const char *base;	/* --base FILE: the service-managed base as is */
	const char *file;	/* FILE argument (plan, apply) */
	bool no_verify;		/* apply: --no-verify */
	double verify_timeout;	/* apply: --verify-timeout S */
	bool exit_code;		/* plan: --exit-code */
};

/* plan --exit-code: the plan has changes (drift --exit-code's number; 1
 * and 3 are taken by errors and refusals, doc/mdcctl.1 EXIT STATUS) */
#define PLAN_EXIT_CHANGES 12

static int parse_popts(struct mdcctl *g, int argc, char **argv, bool takes_file,
		       struct popts *po)
{
	enum { O_BASE = 256, O_NOVERIFY, O_VTIMEOUT, O_EXITCODE };
	static const struct option opts[] = {
		{ "base", required_argument, NULL, O_BASE },
		{ "no-verify", no_argument, NULL, O_NOVERIFY },
		{ "verify-timeout", required_argument, NULL, O_VTIMEOUT },
		{ "exit-code", no_argument, NULL, O_EXITCODE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(po, 0, sizeof(*po));
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case O_BASE: po->base = optarg; break;
		case O_NOVERIFY: po->no_verify = true; break;
		case O_EXITCODE:
			if (strcmp(argv[0], "plan"))
				return mdcctl_usage(g, "%s: --exit-code is plan's (see mdcctl(1))", argv[0]);
			po->exit_code = true;
			break;
		case O_VTIMEOUT: {
			char *end;

			po->verify_timeout = strtod(optarg, &end);
			if (*end || po->verify_timeout <= 0)
				return mdcctl_usage(g, "%s: --verify-timeout '%s': give seconds, > 0",
						    argv[0], optarg);
			break;
		}
		case 'h':
			/* every option this command takes (apply: the verify ones) */
			printf("usage: mdcctl %s [--base FILE]%s%s\n", argv[0],
			       !strcmp(argv[0], "apply") ? " [--no-verify] [--verify-timeout S]" :
			       !strcmp(argv[0], "plan") ? " [--exit-code]" : "",
			       takes_file ? " [FILE]" : "");
			return -1;
		default:
			return mdcctl_usage(g, "%s: unknown option '%s' (see mdcctl(1))", argv[0],
					    argv[optind - 1]);
		}
	}
	if (takes_file && optind < argc)
		po->file = argv[optind++];
	if (optind < argc)
		return mdcctl_usage(g, "%s: unexpected argument '%s'", argv[0], argv[optind]);
	return 0;
}

/* The base to render over: --base as is, else the live slurm.conf's
 * service-managed part; a missing live file means no base (a warning). */
static int load_base(struct mdcctl *g, const struct popts *po, const struct mdc_settings *s,
		     const json_object *cluster, char **base, struct mdc_ctx *ctx)
{
	char *live = NULL;
	int rc;

	*base = NULL;
	if (po->base)
		return mdc_read_regular(po->base, SC_FILE_MAX_BYTES, 0, base, NULL, ctx);
	if (!s->slurm_conf || access(s->slurm_conf, F_OK)) {
		fprintf(stderr, "%s: warning: no live slurm.conf at '%s': rendering without the "
			"service-managed base (give --base FILE)\n", g->progname,
			s->slurm_conf ? s->slurm_conf : "(unset)");
		return 0;
	}
	if ((rc = mdc_read_regular(s->slurm_conf, SC_FILE_MAX_BYTES, 0, &live, NULL, ctx)))
		return rc;
	rc = sc_render_base(live, cluster, base, ctx);
	free(live);
	return rc;
}

static int render_spec(struct mdcctl *g, const struct popts *po, const struct mdc_settings *s,
		       const json_object *cluster, struct mdc_buf *out, struct mdc_ctx *ctx)
{
	char *base = NULL;
	int rc;

	if (!(rc = load_base(g, po, s, cluster, &base, ctx)))
		rc = sc_render(cluster, base, po->base ? po->base : s->slurm_conf, out, ctx);
	free(base);
	return rc;
}

/* ---- slurm.conf difference -> intent ---------------------------------- */

/* The intent that turns BASELINE (what the spec renders) into FILE. */
static int translate(const char *baseline, const char *file, const json_object *spec,
		     struct mdc_intent *in, struct mdc_ctx *ctx)
{
	struct sc_conf *b = NULL, *f = NULL;
	int rc;

	if (!(rc = sc_conf_parse_string(baseline, strlen(baseline), "(rendered spec)", &b, ctx)) &&
	    !(rc = sc_conf_parse_file(file, &f, ctx)))
		rc = sc_translate(b, f, spec, in, ctx);
	sc_conf_free(b);
	sc_conf_free(f);
	return rc;
}

/* ---- plan / apply / edit ----------------------------------------------- */

struct session {
	struct mdc_settings s;
	struct mdc_client *c;
	json_object *cluster;
	struct mdc_intent in;
	struct mdc_plan plan;
	struct mdc_update_opts uo;
	struct mdc_verify ver;
	json_object *op;
	bool have_plan, have_ver;
};

static void session_free(struct session *ss)
{
	json_object_put(ss->op);
	json_object_put(ss->cluster);
	mdc_intent_free(&ss->in);
	if (ss->have_plan)
		mdc_plan_free(&ss->plan);
	if (ss->have_ver)
		mdc_verify_free(&ss->ver);
	mdc_client_free(ss->c);
	mdc_settings_free(&ss->s);
}

/* Connect, read the cluster, render the baseline and translate FILE
 * (NULL = the live slurm.conf) into SS->in. */
static int prepare(struct mdcctl *g, const struct popts *po, const char *file,
		   struct session *ss, struct mdc_ctx *ctx)
{
	struct mdc_buf baseline = MDC_BUF_INIT;
	int rc;

	if ((rc = mdcctl_connect(g, true, &ss->s, &ss->c, ctx)) ||
	    (rc = mdcctl_update_opts(g, &ss->uo, ctx)))
		return rc;
	if (!file)
		file = ss->s.slurm_conf;
	if (!file)
		return mdc_fail(ctx, MDC_ERR_USAGE, "no slurm.conf given and none configured "
				"(set SLURM_CONF or give FILE)");
	if (access(file, R_OK))
		return mdc_fail(ctx, MDC_ERR_IO, "cannot read '%s': %s", file, strerror(errno));
	/* off the cluster there is no live slurm.conf: the planned file, a
	 * whole slurm.conf of the cluster kept in git, holds the
	 * service-managed part the spec renders over (plan, verdict, apply) */
	if (g->remote && !po->base && (!ss->s.slurm_conf || access(ss->s.slurm_conf, R_OK))) {
		char *f = strdup(file);

		if (!f)
			return mdc_nomem(ctx);
		free(ss->s.slurm_conf);
		ss->s.slurm_conf = f;
	}
	if ((rc = mdc_cluster_get(ss->c, ss->s.cluster, &ss->cluster, ctx)))
		return rc;
	if (!(rc = render_spec(g, po, &ss->s, ss->cluster, &baseline, ctx)))
		rc = translate(mdc_buf_str(&baseline), file, ss->cluster, &ss->in, ctx);
	mdc_buf_free(&baseline);
	return rc;
}

/* Slurm's verdict on what the plan produces (mdc_slurmcheck.h): its
 * warnings and refusals go into the plan, CHECKS says which checks ran.
 * MDC_ERR_REFUSED when the change would break Slurm.  (owner: verdict) */
static int verdict(struct mdcctl *g, const struct popts *po, struct session *ss, char *checks,
		   size_t checkssz, struct mdc_ctx *ctx)
{
	struct mdc_slurmcheck_opts o = { .checks = checks, .checkssz = checkssz,
					 .require_slurm = g->remote };
	char *base = NULL, *dir = NULL;
	int rc;

	checks[0] = '\0';
	if (mdc_plan_empty(&ss->plan) || !ss->plan.result)
		return 0;
	if (po->base && ((rc = mdc_read_regular(po->base, SC_FILE_MAX_BYTES, 0, &base, NULL, ctx)) ||
			 !(o.conf_dir = dir = mdc_path_dirname(po->base))))
		goto out;
	o.base = base;
	rc = mdc_slurmcheck_change(po->base ? NULL : ss->s.slurm_conf, ss->cluster, ss->plan.result,
				   &o, &ss->plan.warnings, &ss->plan.refusals, ctx);
out:
	if (!rc && po->base && !dir)
		rc = mdc_nomem(ctx);
	free(base);
	free(dir);
	return rc;
}

static void print_verdict(struct mdcctl *g, const char *checks, int rc)
{
	char rel[160];

	if (*checks && g->format == MDCCTL_TEXT) {
		printf("Slurm's verdict: %s (%s)\n", rc == MDC_ERR_REFUSED ? "refused" : "accepted",
		       checks);
		/* the release the key and plugin checks judged against */
		printf("judged against %s\n", sc_rel_describe(rel, sizeof(rel)));
	}
}

static void print_notes(struct mdcctl *g, const struct mdc_intent *in)
{
	for (size_t i = 0; i < in->notes.n; i++)
		fprintf(stderr, "%s: note: %s\n", g->progname, in->notes.v[i]);
}

static int print_plan(const struct mdc_plan *plan)
{
	struct mdc_buf b = MDC_BUF_INIT;
	int rc = mdc_plan_format(plan, &b);

	if (!rc)
		fputs(mdc_buf_str(&b), stdout);
	mdc_buf_free(&b);
	return rc;
}

int cmd_render(struct mdcctl *g, int argc, char **argv)
{
	struct popts po;
	struct session ss = { 0 };
	struct mdc_buf out = MDC_BUF_INIT;
	struct mdc_ctx ctx;
	int rc;

	mdc_ctx_clear(&ctx);
	if ((rc = parse_popts(g, argc, argv, false, &po)))
		return rc < 0 ? 0 : rc;
	if (!(rc = mdcctl_connect(g, true, &ss.s, &ss.c, &ctx)) &&
	    !(rc = mdc_cluster_get(ss.c, ss.s.cluster, &ss.cluster, &ctx)))
		rc = render_spec(g, &po, &ss.s, ss.cluster, &out, &ctx);
	if (!rc) {
		if (g->format == MDCCTL_JSON) {
			json_object *o = json_object_new_object();

			json_object_object_add(o, "slurm_conf", json_object_new_string(mdc_buf_str(&out)));
			mdcctl_print_json(o);
			json_object_put(o);
		} else {
			fputs(mdc_buf_str(&out), stdout);
		}
	}
	mdc_buf_free(&out);
	session_free(&ss);
	return rc ? mdcctl_fail(g, &ctx) : 0;
}

int cmd_plan(struct mdcctl *g, int argc, char **argv)
{
	char checks[512] = "";
	struct popts po;
	struct session ss = { 0 };
	struct mdc_ctx ctx;
	int rc;

	mdc_ctx_clear(&ctx);
	if ((rc = parse_popts(g, argc, argv, true, &po)))
		return rc < 0 ? 0 : rc;
	if ((rc = prepare(g, &po, po.file, &ss, &ctx)))
		goto out;
	print_notes(g, &ss.in);
	ss.have_plan = true;
	rc = mdc_plan_make(ss.cluster, &ss.in, &ss.uo.plan, &ss.plan, &ctx);
	if (rc && rc != MDC_ERR_REFUSED)
		goto out;
	if (!rc && (rc = verdict(g, &po, &ss, checks, sizeof(checks), &ctx)) &&
	    rc != MDC_ERR_REFUSED)
		goto out;
	if (g->format == MDCCTL_JSON) {
		json_object *j = mdc_plan_to_json(&ss.plan);

		if (j && *checks) {
			char rel[160];

			json_object_object_add(j, "slurm_verdict", json_object_new_string(checks));
			json_object_object_add(j, "judged_release",
					       json_object_new_string(sc_rel_describe(rel, sizeof(rel))));
		}
		mdcctl_print_json(j);
		json_object_put(j);
	} else {
		print_plan(&ss.plan);
		print_verdict(g, checks, rc);
	}
	/* a pull request's check: changes (12) differ from none (0) */
	if (!rc && po.exit_code && !mdc_plan_empty(&ss.plan)) {
		session_free(&ss);
		return PLAN_EXIT_CHANGES;
	}
out:
	session_free(&ss);
	return rc ? mdcctl_fail(g, &ctx) : 0;
}

/* Plan, confirm, PATCH through the safe write (fresh read, lock, re-plan:
 * C14), wait, verify.  FILE: the slurm.conf to apply (NULL = live). */
static int do_apply(struct mdcctl *g, const struct popts *po, const char *file)
{
	char checks[512] = "";
	struct session ss = { 0 };
	struct mdc_verify_opts vo = { po->verify_timeout, false, 0, &mdcctl_interrupted, NULL, NULL };
	struct mdc_ctx ctx;
	json_object *j = NULL, *shown = NULL;
	int rc;

	mdc_ctx_clear(&ctx);
	if ((rc = prepare(g, po, file, &ss, &ctx)))
		goto out;
	print_notes(g, &ss.in);
	/* show what will happen first; refusals stop here, nothing sent */
	ss.have_plan = true;
	rc = mdc_plan_make(ss.cluster, &ss.in, &ss.uo.plan, &ss.plan, &ctx);
	if (rc && rc != MDC_ERR_REFUSED)
		goto out;
	if (!rc && (rc = verdict(g, po, &ss, checks, sizeof(checks), &ctx)) &&
	    rc != MDC_ERR_REFUSED)
		goto out;
	if (g->format == MDCCTL_TEXT) {
		print_plan(&ss.plan);
		print_verdict(g, checks, rc);
	}
	if (rc || mdc_plan_empty(&ss.plan)) {
		if (g->format == MDCCTL_JSON) {
			j = json_object_new_object();
			json_object_object_add(j, "plan", mdc_plan_to_json(&ss.plan));
			mdcctl_print_json(j);
		}
		goto out;
	}
	if (!g->yes) {
		if (!isatty(STDIN_FILENO)) {
			rc = mdc_fail(&ctx, MDC_ERR_REFUSED, "not applied: stdin is not a terminal, "
				      "give --yes to apply without confirmation");
			goto out;
		}
		fflush(stdout);
		if (!mdcctl_confirm(g, "Apply these changes?")) {
			fprintf(stderr, "%s: not applied\n", g->progname);
			goto out;
		}
	}
	/* was slurmctld answering before?  then silence afterwards is a
	 * failed update (C13), not a login node without Slurm */
	if (g->remote) {	/* through the Slurm REST API, not scontrol */
		vo.partitions = mdcctl_remote_partitions;
		vo.partitions_arg = g;
	}
	if (!po->no_verify && !g->async &&
	    (rc = g->remote ? mdcctl_remote_probe(g, &vo.expect_live, &ctx)
			    : mdc_verify_probe(&vo.expect_live, &ctx)))
		goto out;
	shown = ss.plan.payload ? json_object_get(ss.plan.payload) : NULL;
	mdc_plan_free(&ss.plan);
	rc = mdc_update_run(ss.c, &ss.s, &ss.in, &ss.uo, &ss.plan, &ss.op, &ctx);
	/* the intent was planned again on a fresh read (C14): say so when
	 * someone changed the cluster in between */
	if (ss.plan.payload && shown && !mdc_json_equal(shown, ss.plan.payload)) {
		char *mask = mdc_strv_join(&ss.plan.mask, ",");

		fprintf(stderr, "%s: note: the cluster changed since the plan above; the same "
			"changes were applied to its fresh state (updateMask: %s)\n", g->progname,
			mask ? mask : "?");
		free(mask);
	}
	if (rc)
		goto out;
	if (g->async) {
		const char *name = mdc_json_get_str(ss.op, "name", "?");

		if (g->format == MDCCTL_TEXT)
			printf("operation: %s\nwait for it with: mdcctl operations wait %s\n", name, name);
	} else if (!po->no_verify && !mdc_plan_empty(&ss.plan)) {
		struct mdc_buf b = MDC_BUF_INIT;

		ss.have_ver = true;
		rc = mdc_verify_plan(&ss.plan, &vo, &ss.ver, &ctx);
		if (g->format == MDCCTL_TEXT && !mdc_verify_format(&ss.ver, &b))
			fputs(mdc_buf_str(&b), stdout);
		mdc_buf_free(&b);
	}
	if (g->format == MDCCTL_TEXT && !rc && !g->async)
		printf("applied\n");
	if (g->format == MDCCTL_JSON) {
		j = json_object_new_object();
		json_object_object_add(j, "plan", mdc_plan_to_json(&ss.plan));
		json_object_object_add(j, "operation", ss.op ? json_object_get(ss.op) : NULL);
		json_object_object_add(j, "verify", ss.have_ver ? mdc_verify_to_json(&ss.ver) : NULL);
		mdcctl_print_json(j);
	}
out:
	json_object_put(j);
	json_object_put(shown);
	session_free(&ss);
	fflush(stdout);		/* the report before the error line */
	return rc ? mdcctl_fail(g, &ctx) : 0;
}

int cmd_apply(struct mdcctl *g, int argc, char **argv)
{
	struct popts po;
	int rc;

	if ((rc = parse_popts(g, argc, argv, true, &po)))
		return rc < 0 ? 0 : rc;
	return do_apply(g, &po, po.file);
}

/* Run the user's editor on PATH: $VISUAL, else $EDITOR, else vi; through
 * the shell so "EDITOR='code --wait'" works. */
static int run_editor(const char *path, struct mdc_ctx *ctx)
{
	const char *ed = getenv("VISUAL");
	char cmd[4096];
	char *argv[] = { "/bin/sh", "-c", cmd, "sh", (char *) path, NULL };
	struct mdc_run_result r;

	if (!ed || !*ed)
		ed = getenv("EDITOR");
	if (!ed || !*ed)
		ed = "vi";
	snprintf(cmd, sizeof(cmd), "%s \"$1\"", ed);
	/* the terminal is the editor's: stdio inherited, no time bound */
	if (mdc_run(argv, NULL, NULL, NULL, &r, ctx))
		return mdc_fail(ctx, MDC_ERR_IO, "cannot start the editor '%s'", ed);
	if (r.status)
		return mdc_fail(ctx, MDC_ERR_IO, "the editor '%s' failed (status %d): nothing applied",
				ed, r.status);
	return 0;
}

int cmd_edit(struct mdcctl *g, int argc, char **argv)
{
	struct popts po;
	struct mdc_settings s;
	struct mdc_ctx ctx;
	char dir[] = "/tmp/mdcctl-edit.XXXXXX";
	char *live = NULL, *edited = NULL, *copy = NULL;
	bool keep = false;
	int rc;

	mdc_ctx_clear(&ctx);
	memset(&s, 0, sizeof(s));
	if ((rc = parse_popts(g, argc, argv, false, &po)))
		return rc < 0 ? 0 : rc;
	if ((rc = mdcctl_settings(g, true, &s, &ctx)))
		goto out;
	if (!s.slurm_conf) {
		rc = mdc_fail(&ctx, MDC_ERR_USAGE, "no live slurm.conf configured (set SLURM_CONF)");
		goto out;
	}
	if ((rc = mdc_read_regular(s.slurm_conf, SC_FILE_MAX_BYTES, 0, &live, NULL, &ctx)))
		goto out;
	if (!mkdtemp(dir)) {
		rc = mdc_fail(&ctx, MDC_ERR_IO, "cannot create a temporary directory: %s", strerror(errno));
		goto out;
	}
	/* same name as the live file: editors pick the syntax from it */
	if (!(copy = mdc_path_join(dir, "slurm.conf"))) {
		rc = mdc_nomem(&ctx);
		goto out;
	}
	if ((rc = mdc_write_file_atomic(copy, live, strlen(live), 0600, &ctx)) ||
	    (rc = run_editor(copy, &ctx)) ||
	    (rc = mdc_read_regular(copy, SC_FILE_MAX_BYTES, 0, &edited, NULL, &ctx)))
		goto out;
	if (!strcmp(live, edited)) {
		if (g->format == MDCCTL_JSON)
			printf("{ \"unchanged\": true }\n");
		else
			printf("slurm.conf unchanged: nothing to apply\n");
		goto out;
	}
	/* the base stays the live file's managed part: with --base unset,
	 * prepare() takes it from SLURM_CONF, not from the edited copy */
	rc = do_apply(g, &po, copy);
	keep = rc != 0;
	if (keep)
		fprintf(stderr, "%s: your edited file is kept in %s\n", g->progname, copy);
	goto done;
out:
	rc = rc ? mdcctl_fail(g, &ctx) : 0;
done:
	if (copy && !keep) {
		unlink(copy);
		rmdir(dir);
	} else if (!copy && dir[strlen(dir) - 1] != 'X') {
		rmdir(dir);
	}
	free(copy);
	free(live);
	free(edited);
	mdc_settings_free(&s);
	return rc;
}

int cmd_migrate_config(struct mdcctl *g, int argc, char **argv)
{
	struct mdc_intent in = MDC_INTENT_INIT;
	int rc;
	if ((rc = mdcctl_operands(g, &argc, &argv)))
		return rc;

	if (argc > 1)
		return mdcctl_usage(g, "%s: takes no arguments", argv[0]);
	if (!mdc_intent_add(&in, MDC_OP_MIGRATE_CONFIG, NULL, NULL, NULL))
		return mdcctl_nomem(g);
	rc = mdcctl_update(g, &in, "migrate-config");
	mdc_intent_free(&in);
	return rc;
}
