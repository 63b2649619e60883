/* cmd_conf.c - `mdcctl conf check FILE...` and `mdcctl conf dump FILE`:
 * read slurm.conf files with the Slurm-faithful parser, no cluster needed.
 * (owner: slurm.conf engine; the verdict part: verdict)
 *
 * check: diagnostics like a compiler ("file:line:col: error: ...") on
 * stderr; a file that reads cleanly then gets the verdict every write gets
 * (mdc_slurmcheck: our value and cross-key checks, then Slurm's own
 * parser), one "FILE: ok|refused; checks: ..." line on stdout saying which
 * checks ran, after a "judged against Slurm X.Y (where it came from)"
 * line (sc_release.h); exit 3 if any file has an error.  dump: what was read (globals,
 * records with their keys, file:line:col of each); --format json gives
 * sc_conf_to_json's object.
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mdc_json.h"
#include "mdc_settings.h"
#include "mdc_slurmcheck.h"
#include "sc_conf.h"
#include "sc_dump.h"
#include "sc_release.h"
#include "mdcctl.h"

#define CONF_CHECK_FORM "mdcctl conf check [--lenient] [--template] FILE...\n"
#define CONF_DUMP_FORM "mdcctl conf dump [--lenient] [--template] FILE [--format json]\n"
#define CONF_FLAGS_HELP \
	"  --lenient   unknown keys, bad values, missing includes, Slurm's verdict are warnings\n" \
	"  --template  read template tokens ({{ }}, {% %}, <% %>, {name}) as opaque values"
static const char conf_usage[] =
	"usage: " CONF_CHECK_FORM "   or: " CONF_DUMP_FORM CONF_FLAGS_HELP;
static const char conf_check_usage[] = "usage: " CONF_CHECK_FORM CONF_FLAGS_HELP;
static const char conf_dump_usage[] = "usage: " CONF_DUMP_FORM CONF_FLAGS_HELP;

static void print_diags(const struct sc_conf *c)
{
	size_t i;

	for (i = 0; i < c->ndiags; i++) {
		char *m = sc_diag_format(&c->diags[i]);

		fprintf(stderr, "%s\n", m ? m : "out of memory");
		free(m);
	}
}

/* Load PATH into a new conf (*OUT, always set unless out of memory);
 * errors that are not diagnostics (unreadable file) are printed here.
 * With TEXT, the file's text is also kept there (the caller frees it) for
 * Slurm's own check: the file is read once either way. */
static int load(const char *path, unsigned flags, struct sc_conf **out, char **text)
{
	struct mdc_ctx ctx;
	struct sc_conf *c = sc_conf_new();
	size_t len = 0;
	int rc;

	*out = c;
	if (!c) {
		fprintf(stderr, "mdcctl: error: out of memory\n");
		return MDC_ERR_NOMEM;
	}
	c->flags = flags;
	mdc_ctx_clear(&ctx);
	if (!text)
		rc = sc_conf_load_file(c, path, &ctx);
	else if (!(rc = mdc_read_regular(path, SC_FILE_MAX_BYTES, 0, text, &len, &ctx)))
		rc = sc_conf_load_string(c, *text, len, path, &ctx);
	if (rc && !sc_conf_errors(c))
		fprintf(stderr, "%s: error: %s\n", path, ctx.msg);
	return rc;
}

/* --lenient, --template and --help of ARGV (ARGV[0] the subcommand, USAGE
 * its usage; the files follow from ARGV[optind]); -1 to go on, else the
 * exit status. */
static int conf_flags(struct mdcctl *g, int argc, char **argv, const char *usage,
		      unsigned *flags)
{
	enum { O_LENIENT = 256, O_TEMPLATE };
	static const struct option opts[] = {
		{ "lenient", no_argument, NULL, O_LENIENT },
		{ "template", no_argument, NULL, O_TEMPLATE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt, rc = 0;

	*flags = 0;
	while ((opt = mdcctl_getopt(g, argc, argv, "h", opts, &rc)) != -1 && opt != '?') {
		if (opt == 'h') {
			puts(usage);
			return 0;
		}
		*flags |= opt == O_LENIENT ? SC_PARSE_LENIENT : SC_PARSE_TEMPLATE;
	}
	return rc ? rc : -1;
}

/* The verdict on PATH (parsed cleanly into C; TEXT: its text, or NULL when
 * Slurm's check does not run): diagnostics on stderr, the summary on stdout
 * (text), or into E (JSON).  Errors are warnings with --lenient.  Returns 0
 * or MDC_ERR_PARSE (the file is refused). */
static int verdict(struct mdcctl *g, const char *path, unsigned flags, const struct sc_conf *c,
		   const char *text, json_object *e)
{
	struct mdc_slurmcheck res = MDC_SLURMCHECK_INIT;
	struct mdc_slurmcheck_opts o = { .timeout_s = 0, .conf = c };
	struct mdc_buf checks = MDC_BUF_INIT;
	bool lenient = flags & SC_PARSE_LENIENT;
	char *dir = NULL, *late = NULL, libbuf[4096];
	struct mdc_ctx ctx;
	int rc = 0;

	mdc_ctx_clear(&ctx);
	/* libslurmfull appeared since conf_check looked: read the text now */
	if (!text && mdc_slurmcheck_library(libbuf, sizeof(libbuf)) &&
	    !(rc = mdc_read_regular(path, SC_FILE_MAX_BYTES, 0, &late, NULL, &ctx)))
		text = late;
	if (rc || !(o.conf_dir = dir = mdc_path_dirname(path)) ||
	    (rc = mdc_slurmcheck_text(text, path, &o, &res, &ctx))) {
		fprintf(stderr, "%s: error: %s\n", path, rc ? ctx.msg : "out of memory");
		rc = rc ? rc : MDC_ERR_NOMEM;
		goto out;
	}
	mdc_slurmcheck_format_checks(&res, &checks);
	if (g->format == MDCCTL_TEXT) {
		for (size_t i = 0; i < res.errors.n; i++)
			fprintf(stderr, "%s: %s: %s\n", path, lenient ? "warning" : "error",
				res.errors.v[i]);
		for (size_t i = 0; i < res.warnings.n; i++)
			fprintf(stderr, "%s: warning: %s\n", path, res.warnings.v[i]);
		printf("%s: %s; %s\n", path, res.errors.n ? "refused" : "ok", mdc_buf_str(&checks));
	} else if (e) {
		json_object *errs = json_object_new_array(), *warns = json_object_new_array();

		for (size_t i = 0; i < res.errors.n; i++)
			json_object_array_add(errs, json_object_new_string(res.errors.v[i]));
		for (size_t i = 0; i < res.warnings.n; i++)
			json_object_array_add(warns, json_object_new_string(res.warnings.v[i]));
		json_object_object_add(e, "verdict_errors", errs);
		json_object_object_add(e, "verdict_warnings", warns);
		json_object_object_add(e, "checks", json_object_new_string(mdc_buf_str(&checks)));
		json_object_object_add(e, "slurm_checked", json_object_new_boolean(res.ran_slurm));
		json_object_object_add(e, "slurmctld_checked", json_object_new_boolean(res.ran_ctld));
	}
	rc = res.errors.n && !lenient ? MDC_ERR_PARSE : 0;
out:
	mdc_slurmcheck_free(&res);
	mdc_buf_free(&checks);
	free(dir);
	free(late);
	return rc;
}

/* The release the verdict judges against (mdc.conf's SlurmRelease when no
 * scontrol answers: sc_release_live.h), said once before the files. */
static void judged_release(struct mdcctl *g, char (*rel)[160])
{
	struct mdc_settings s = { 0 };
	struct mdc_ctx ctx;

	mdc_ctx_clear(&ctx);
	/* no cluster is needed here: a broken mdc.conf only loses its release */
	if (mdc_settings_load(&s, &ctx))
		fprintf(stderr, "mdcctl: warning: %s\n", ctx.msg);
	mdc_settings_free(&s);
	sc_rel_describe(*rel, sizeof(*rel));
	if (g->format == MDCCTL_TEXT)
		printf("judged against %s\n", *rel);
}

static int conf_check(struct mdcctl *g, int argc, char **argv)
{
	json_object *arr = NULL;
	int i, worst = 0;
	unsigned flags;
	bool judge, slurm;
	char libbuf[4096], rel[160];

	if ((worst = conf_flags(g, argc, argv, conf_check_usage, &flags)) >= 0)
		return worst;
	worst = 0;
	argc -= optind;
	argv += optind;
	if (argc < 1)
		return mdcctl_usage(g, "conf check: give one or more files\n%s", conf_check_usage);
	if (g->format == MDCCTL_JSON && !(arr = json_object_new_array()))
		return mdc_exit_code(MDC_ERR_NOMEM);
	/* Slurm's own check reads the text as it is: keep it only then */
	judge = !(flags & SC_PARSE_TEMPLATE);
	slurm = judge && mdc_slurmcheck_library(libbuf, sizeof(libbuf));
	if (judge)
		judged_release(g, &rel);
	for (i = 0; i < argc; i++) {
		struct sc_conf *c = NULL;
		char *text = NULL;
		int rc = load(argv[i], flags, &c, slurm ? &text : NULL);

		json_object *e = arr ? json_object_new_object() : NULL;

		if (c && g->format == MDCCTL_TEXT)
			print_diags(c);
		/* a file that does not read cleanly gets no verdict: one error
		 * at a time, like a compiler; templates cannot be judged */
		if (c && !rc && judge)
			rc = verdict(g, argv[i], flags, c, text, e);
		free(text);
		if (c && e) {
			json_object *o = sc_conf_to_json(c), *d = NULL;

			if (o)
				d = json_object_get(mdc_json_get(o, "diagnostics"));
			json_object_object_add(e, "file", json_object_new_string(argv[i]));
			if (judge)
				json_object_object_add(e, "judged_release", json_object_new_string(rel));
			json_object_object_add(e, "ok", json_object_new_boolean(rc == 0));
			json_object_object_add(e, "diagnostics", d ? d : json_object_new_array());
			json_object_array_add(arr, e);
			e = NULL;
			json_object_put(o);
		}
		json_object_put(e);
		if (rc && !worst)
			worst = mdc_exit_code((enum mdc_err) rc);
		sc_conf_free(c);
	}
	if (arr) {
		mdcctl_print_json(arr);
		json_object_put(arr);
	}
	return mdcctl_finish(worst);
}

/* A value as it would be written back: quoted when it holds a blank. */
static void print_value(const char *v)
{
	if (!*v || strpbrk(v, " \t"))
		printf("\"%s\"", v);
	else
		fputs(v, stdout);
}

static void dump_text(const struct sc_conf *c)
{
	size_t i, j;

	for (i = 0; i < c->nglobals; i++) {
		const struct sc_kv *kv = &c->globals[i];

		printf("%s:%d:%d: %s=", kv->file, kv->line, kv->col, kv->key);
		print_value(kv->value);
		putchar('\n');
	}
	for (i = 0; i < c->nrecs; i++) {
		const struct sc_record *r = &c->recs[i];

		printf("%s:%d: %s=%s%s\n", r->file, r->line, sc_rec_type_name(r->type),
		       r->name, r->is_default ? " (defaults)" : "");
		for (j = 0; j < r->nkv; j++) {
			const struct sc_kv *kv = &r->kv[j];

			printf("%s:%d:%d:   %s=", kv->file, kv->line, kv->col, kv->key);
			print_value(kv->value);
			printf("%s\n", kv->from_default ? " (from DEFAULT)" : "");
		}
	}
}

static int conf_dump(struct mdcctl *g, int argc, char **argv)
{
	struct sc_conf *c = NULL;
	unsigned flags;
	int rc = 0;

	if ((rc = conf_flags(g, argc, argv, conf_dump_usage, &flags)) >= 0)
		return rc;
	argc -= optind;
	argv += optind;
	if (argc != 1)
		return mdcctl_usage(g, "conf dump: give exactly one file\n%s", conf_dump_usage);
	rc = load(argv[0], flags, &c, NULL);
	if (c)
		print_diags(c);
	if (rc) {
		sc_conf_free(c);
		return mdcctl_finish(mdc_exit_code((enum mdc_err) rc));
	}
	if (g->format == MDCCTL_JSON) {
		json_object *o = sc_conf_to_json(c);

		if (!o) {
			sc_conf_free(c);
			fprintf(stderr, "mdcctl: error: out of memory\n");
			return mdc_exit_code(MDC_ERR_NOMEM);
		}
		mdcctl_print_json(o);
		json_object_put(o);
	} else {
		dump_text(c);
	}
	sc_conf_free(c);
	return mdcctl_finish(0);
}

static const struct {
	const char *name;
	int (*fn)(struct mdcctl *g, int argc, char **argv);
} conf_cmds[] = {
	{ "check", conf_check },
	{ "dump", conf_dump },
};

int cmd_conf(struct mdcctl *g, int argc, char **argv)
{
	size_t i;

	if (argc < 2)
		return mdcctl_usage(g, "conf: give a subcommand\n%s", conf_usage);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		puts(conf_usage);
		return 0;
	}
	for (i = 0; i < sizeof(conf_cmds) / sizeof(conf_cmds[0]); i++)
		if (!strcmp(argv[1], conf_cmds[i].name))
			return conf_cmds[i].fn(g, argc - 1, argv + 1);
	/* `conf --lenient check F`: the option is right, its place is not */
	if (argv[1][0] == '-')
		return mdcctl_usage(g, "conf: '%s' goes after the subcommand: mdcctl conf check "
				    "%s FILE...\n%s", argv[1], argv[1], conf_usage);
	return mdcctl_usage(g, "conf: unknown subcommand '%s'\n%s", argv[1], conf_usage);
}
