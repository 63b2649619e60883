/* cmd_drift.c - `mdcctl drift [--exit-code | --adopt [--key K]... [--dry-run]]`: the
 * three-way comparison of DESIGN 7 -- the slurm.conf the managed spec
 * renders, the live slurm.conf file and the live slurmctld -- for the
 * settings the next regeneration of slurm.conf would lose (scontrol
 * update/create/delete, a hand-edited slurm.conf), the keys waiting for a
 * slurmctld restart, and the runtime state of the nodes; --adopt persists
 * chosen settings through the API.  (owner: drift)
 *
 * The comparison, the selection and the intent are the library's drift
 * engine (lib/mdc_drift.c); this file parses, reads the live side,
 * prints, confirms and sends. */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "mdc_client.h"
#include "mdc_drift.h"
#include "mdc_json.h"
#include "mdc_plan.h"
#include "mdc_update.h"
#include "mdcctl.h"

/* --exit-code: settings drift found (git diff --exit-code's habit; 1 is
 * taken by errors here, doc/mdcctl.1 EXIT STATUS) */
#define DRIFT_EXIT_FOUND 12

/* ---- output ----------------------------------------------------------- */

static void print_settings(const struct mdc_drifts *d, bool only_selected)
{
	char scope[300];

	printf("%-24s %-20s %-20s %-20s %s\n", "SCOPE", "KEY", "LIVE", "MANAGED", "SOURCE");
	for (size_t i = 0; i < d->n; i++) {
		const struct mdc_drift *x = &d->v[i];

		if (!only_selected || x->selected)
			printf("%-24s %-20s %-20s %-20s %s\n", mdc_drift_scope(x, scope, sizeof(scope)), x->key,
			       x->live ? x->live : "(absent)", x->managed, mdc_drift_source(x));
	}
}

static void print_not_adoptable(const struct mdc_drifts *d)
{
	char scope[300];

	for (size_t i = 0; i < d->n; i++)
		if (d->v[i].why_not)
			printf("not adoptable: %s %s: %s\n", mdc_drift_scope(&d->v[i], scope, sizeof(scope)),
			       d->v[i].key, d->v[i].why_not);
}

static void print_pending(const struct mdc_drifts *p, bool first)
{
	char scope[300];

	if (!p->n)
		return;
	printf("%spending restart: slurm.conf has these keys, slurmctld runs its old value until it "
	       "restarts\n", first ? "" : "\n");
	printf("%-24s %-20s %-20s %s\n", "SCOPE", "KEY", "SLURMCTLD", "SLURM.CONF");
	for (size_t i = 0; i < p->n; i++)
		printf("%-24s %-20s %-20s %s\n", mdc_drift_scope(&p->v[i], scope, sizeof(scope)), p->v[i].key,
		       p->v[i].ctld ? p->v[i].ctld : "", p->v[i].live ? p->v[i].live : "(absent)");
	printf("the service reloads slurm.conf (scontrol reconfigure) and never restarts slurmctld for "
	       "a setting: %s at slurmctld's next restart (never adopted back)\n",
	       p->n == 1 ? "it takes effect" : "they take effect");
}

static void print_state(const struct mdc_drifts *s)
{
	char scope[300];

	if (!s->n)
		return;
	printf("\nruntime state (not settings: kept by slurmctld, never adopted)\n");
	printf("%-24s %-20s %s\n", "SCOPE", "STATE", "REASON");
	for (size_t i = 0; i < s->n; i++)
		printf("%-24s %-20s %s\n", mdc_drift_scope(&s->v[i], scope, sizeof(scope)), s->v[i].live,
		       *s->v[i].managed ? s->v[i].managed : "-");
}

static int print_report(struct mdcctl *g, const struct mdc_drift_view *v, struct mdc_ctx *ctx)
{
	if (g->format == MDCCTL_JSON) {
		json_object *out = json_object_new_object();

		if (!out)
			return mdc_nomem(ctx);
		json_object_object_add(out, "drift", mdc_drifts_json(&v->set, false));
		json_object_object_add(out, "count", json_object_new_int((int) v->set.n));
		json_object_object_add(out, "pending_restart", mdc_drifts_json(&v->pend, false));
		json_object_object_add(out, "runtime_state", mdc_drifts_json(&v->state, false));
		mdcctl_print_json(out);
		json_object_put(out);
		return 0;
	}
	if (!v->set.n && !v->pend.n) {
		printf("no drift: the live slurmctld matches the managed spec\n");
	} else if (v->set.n) {
		print_settings(&v->set, false);
		printf("%zu runtime change%s the next regeneration would lose (mdcctl drift --adopt persists %s)\n",
		       v->set.n, v->set.n == 1 ? "" : "s", v->set.n == 1 ? "it" : "them");
		print_not_adoptable(&v->set);
	}
	print_pending(&v->pend, !v->set.n);
	print_state(&v->state);
	return 0;
}

/* ---- the command -------------------------------------------------------- */

/* R and L when the live file is there; without it the spec is compared
 * with slurmctld alone, and the user is told. */
static int load_files(struct mdcctl *g, struct mdc_drift_view *v, struct mdc_ctx *ctx)
{
	if (!v->conf_path || access(v->conf_path, R_OK)) {
		fprintf(stderr, "%s: warning: no live slurm.conf at '%s': comparing the spec with "
			"slurmctld only (set SLURM_CONF)\n", g->progname,
			v->conf_path ? v->conf_path : "(unset)");
		return 0;
	}
	return mdc_drift_load_files(v, ctx);
}

static void usage_text(void)
{
	printf("usage: mdcctl drift [--exit-code | --adopt [--key KEY]... [--dry-run]]\n"
	       "Compare the live slurmctld and the live slurm.conf with what the managed spec\n"
	       "renders: settings the next regeneration would lose (cluster, partition and node\n"
	       "keys), keys pending a slurmctld restart, and node runtime state (DOWN, DRAIN).\n"
	       "  --exit-code  exit %d when settings drift (a regeneration would lose them),\n"
	       "               0 when none do; keys pending a restart and runtime state\n"
	       "               do not count\n"
	       "  --adopt      persist the settings through the API (shows the change set and\n"
	       "               asks on a terminal; --yes without one)\n"
	       "  --key KEY    adopt only KEY (cluster scope), PartitionName=P[:KEY],\n"
	       "               NodeSet=POOL[:KEY] or NodeName=NODE[:KEY]; repeatable\n"
	       "  --dry-run    show what --adopt would send and send nothing\n",
	       DRIFT_EXIT_FOUND);
}

/* The update regenerates slurm.conf: the runtime changes not adopted are
 * lost then; say which, so nothing is lost in silence. */
static void warn_left_out(struct mdcctl *g, const struct mdc_drifts *d)
{
	char scope[300];
	size_t n = 0;

	for (size_t i = 0; i < d->n; i++)
		n += !d->v[i].selected;
	if (!n)
		return;
	fprintf(stderr, "%s: warning: this update regenerates slurm.conf: %zu runtime change%s not "
		"adopted %s lost then:", g->progname, n, n == 1 ? "" : "s", n == 1 ? "is" : "are");
	for (size_t i = 0, k = 0; i < d->n; i++)
		if (!d->v[i].selected)
			fprintf(stderr, "%s %s %s", k++ ? "," : "",
				mdc_drift_scope(&d->v[i], scope, sizeof(scope)), d->v[i].key);
	fputc('\n', stderr);
}

/* The change set before it is sent: the selected drifts and the plan
 * (text only; JSON prints once, at the end). */
static int show_plan(struct mdcctl *g, const struct mdc_drift_view *v, const struct mdc_plan *plan,
		     struct mdc_ctx *ctx)
{
	struct mdc_buf b = MDC_BUF_INIT;

	warn_left_out(g, &v->set);
	if (g->format != MDCCTL_TEXT)
		return 0;
	print_settings(&v->set, true);
	if (mdc_plan_format(plan, &b)) {
		mdc_buf_free(&b);
		return mdc_nomem(ctx);
	}
	printf("\n%s", mdc_buf_str(&b));
	mdc_buf_free(&b);
	if (v->pend.n)
		printf("pending restart keys are not adopted (see mdcctl drift)\n");
	return 0;
}

/* The selected drifts, the plan and OP (NULL: not sent) as JSON;
 * DRY_RUN >= 0: say whether it was a dry run. */
static void print_adopt_json(const struct mdc_drift_view *v, const struct mdc_plan *plan,
			     json_object *op, int dry_run)
{
	json_object *out = json_object_new_object();

	json_object_object_add(out, "drift", mdc_drifts_json(&v->set, true));
	json_object_object_add(out, "plan", mdc_plan_to_json(plan));
	if (dry_run >= 0)
		json_object_object_add(out, "dry_run", json_object_new_boolean(dry_run));
	else
		json_object_object_add(out, "operation", op ? json_object_get(op) : NULL);
	mdcctl_print_json(out);
	json_object_put(out);
}

/* Go ahead on --yes or the user's yes on a terminal; *DECLINED: they said no. */
static int confirm(struct mdcctl *g, bool *declined, struct mdc_ctx *ctx)
{
	*declined = false;
	if (g->yes)
		return 0;
	if (!isatty(STDIN_FILENO))
		return mdc_fail(ctx, MDC_ERR_REFUSED, "drift --adopt: not adopted: stdin is not a "
				"terminal, give --yes to adopt without confirmation; nothing was sent");
	fflush(stdout);
	if (!mdcctl_confirm(g, "Adopt these changes?")) {
		fprintf(stderr, "%s: not adopted: nothing was sent\n", g->progname);
		*declined = true;
	}
	return 0;
}

/* --adopt: select, plan, show, confirm, send. */
static int adopt(struct mdcctl *g, struct mdc_drift_view *v, const struct mdc_strv *sels, bool dry_run,
		 struct mdc_client *c, struct mdc_settings *s, struct mdc_ctx *ctx)
{
	struct mdc_intent in = MDC_INTENT_INIT;
	struct mdc_update_opts uo;
	struct mdc_plan plan;
	json_object *op = NULL;
	bool declined;
	size_t n = 0;
	int rc;

	memset(&plan, 0, sizeof(plan));
	if ((rc = mdc_drift_select(&v->set, &v->pend, sels, ctx)))
		goto out;
	for (size_t i = 0; i < v->set.n; i++)
		n += v->set.v[i].selected;
	if (!n) {
		if (g->format == MDCCTL_JSON) {
			rc = print_report(g, v, ctx);
		} else {
			printf("no drift: nothing to adopt\n");
			print_not_adoptable(&v->set);
			print_pending(&v->pend, false);
		}
		goto out;
	}
	if ((rc = mdc_drift_intent(v, &in, ctx)) || (rc = mdcctl_update_opts(g, &uo, ctx)))
		goto out;
	rc = mdc_plan_make(v->cluster, &in, &uo.plan, &plan, ctx);
	if (rc && rc != MDC_ERR_REFUSED)
		goto out;
	if (show_plan(g, v, &plan, ctx)) {
		rc = MDC_ERR_NOMEM;
		goto out;
	}
	if (rc || dry_run || mdc_plan_empty(&plan)) {
		if (g->format == MDCCTL_JSON)
			print_adopt_json(v, &plan, NULL, dry_run);
		else if (dry_run && !rc)
			printf("dry run: nothing was sent\n");
		if (rc == MDC_ERR_REFUSED && !ctx->err)
			mdc_fail(ctx, rc, "drift --adopt: refused (see above); nothing was sent");
		goto out;
	}
	if ((rc = confirm(g, &declined, ctx)) || declined)
		goto out;
	mdc_plan_free(&plan);
	if ((rc = mdc_update_run(c, s, &in, &uo, &plan, &op, ctx)))
		goto out;
	if (g->format == MDCCTL_JSON)
		print_adopt_json(v, &plan, op, -1);
	else if (g->async && op && !mdc_json_get_bool(op, "done", false))
		printf("operation: %s\n", mdc_json_get_str(op, "name", "?"));
	else
		printf("drift: adopted %zu change%s\n", n, n == 1 ? "" : "s");
out:
	json_object_put(op);
	mdc_plan_free(&plan);
	mdc_intent_free(&in);
	return rc;
}

/* What `mdcctl drift` was asked. */
struct drift_args {
	struct mdc_strv sels;		/* --key */
	bool adopt, dry_run, exit_code, help;
};

/* ARGV into A; an error is the usage one, already printed. */
static int parse_args(struct mdcctl *g, int argc, char **argv, struct drift_args *a)
{
	enum { O_ADOPT = 256, O_DRY_RUN, O_KEY, O_EXIT_CODE };
	static const struct option opts[] = {
		{ "adopt", no_argument, NULL, O_ADOPT }, { "dry-run", no_argument, NULL, O_DRY_RUN },
		{ "key", required_argument, NULL, O_KEY }, { "help", no_argument, NULL, 'h' },
		{ "exit-code", no_argument, NULL, O_EXIT_CODE },
		{ NULL, 0, NULL, 0 },
	};
	int rc = 0, opt;

	while ((opt = mdcctl_getopt(g, argc, argv, "h", opts, &rc)) != -1 && opt != '?') {
		switch (opt) {
		case O_ADOPT: a->adopt = true; break;
		case O_DRY_RUN: a->dry_run = true; break;
		case O_EXIT_CODE: a->exit_code = true; break;
		case 'h':
			a->help = true;
			return 0;
		case O_KEY:
			if (!mdc_drift_sel_valid(optarg))
				return mdcctl_usage(g, "drift: --key '%s': use KEY, PartitionName=P[:KEY], "
						    "NodeSet=POOL[:KEY] or NodeName=NODE[:KEY]", optarg);
			if (mdc_strv_push(&a->sels, optarg))
				return mdcctl_nomem(g);
			break;
		}
	}
	if (rc)
		return rc;
	if (optind < argc)
		return mdcctl_usage(g, "drift: unknown argument '%s' (see mdcctl drift --help)",
				    argv[optind]);
	if (!a->adopt && (a->dry_run || a->sels.n))
		return mdcctl_usage(g, "drift: %s goes with --adopt", a->dry_run ? "--dry-run" : "--key");
	if (a->adopt && g->remote)
		return mdcctl_usage(g, "drift: --adopt does not go with --remote (it reads the live "
				    "slurm.conf and NodeSets, which the Slurm REST API does not show)");
	if (a->adopt && a->exit_code)
		return mdcctl_usage(g, "drift: --exit-code reports drift; it does not go with --adopt");
	return 0;
}

/* The live side of V: scontrol and the live slurm.conf, or with --remote
 * the partitions and nodes slurmrestd shows (and a note of what it cannot). */
static int read_live(struct mdcctl *g, struct mdc_drift_view *v, struct mdc_ctx *ctx)
{
	int rc;

	if (!g->remote) {
		if ((rc = mdc_drift_read_live(v, ctx)))
			return rc;
		return load_files(g, v, ctx);
	}
	v->remote = true;
	if ((rc = mdcctl_remote_partitions(&v->parts, g, ctx)) ||
	    (rc = mdcctl_remote_nodes(&v->nodes, g, ctx)))
		return rc;
	fprintf(stderr, "%s: note: drift --remote compares the partitions slurmrestd shows "
		"with the spec and lists the nodes' runtime state; it cannot see cluster keys, "
		"keys pending a restart, node keys, NodeSets, partition keys the REST API does "
		"not show, or a hand-edited slurm.conf\n", g->progname);
	return 0;
}

int cmd_drift(struct mdcctl *g, int argc, char **argv)
{
	struct drift_args a = { .sels = MDC_STRV_INIT };
	struct mdc_settings s;
	struct mdc_client *c = NULL;
	struct mdc_drift_view v;
	struct mdc_ctx ctx;
	int rc;

	memset(&s, 0, sizeof(s));
	memset(&v, 0, sizeof(v));
	mdc_ctx_clear(&ctx);
	if ((rc = parse_args(g, argc, argv, &a)) || a.help) {
		if (a.help)
			usage_text();
		goto done;
	}
	if ((rc = mdcctl_connect(g, true, &s, &c, &ctx)) ||
	    (rc = mdc_cluster_get(c, s.cluster, &v.cluster, &ctx)))
		goto out;
	v.conf_path = s.slurm_conf;
	if ((rc = read_live(g, &v, &ctx)) || (rc = mdc_drift_compare(&v, &ctx)))
		goto out;
	if (a.adopt)
		rc = adopt(g, &v, &a.sels, a.dry_run, c, &s, &ctx);
	else if (!(rc = print_report(g, &v, &ctx)) && a.exit_code && v.set.n) {
		rc = DRIFT_EXIT_FOUND;	/* a finding, not an error: nothing to add */
		goto done;
	}
out:
	if (rc)
		rc = mdcctl_fail(g, &ctx);
done:
	mdc_drift_view_free(&v);
	mdc_client_free(c);
	mdc_settings_free(&s);
	mdc_strv_free(&a.sels);
	return rc;
}
