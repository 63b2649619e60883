/* cmd_conf.c - `mdcctl conf check FILE...` and `mdcctl conf dump FILE`:
 * read slurm.conf files with the Slurm-faithful parser, no cluster needed.
 * (owner: slurm.conf engine)
 *
 * check: diagnostics like a compiler ("file:line:col: error: ...") on
 * stderr, exit 3 if any file has an error.  dump: what was read (globals,
 * records with their keys, file:line:col of each); --format json gives
 * sc_conf_to_json's object.
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mdc_json.h"
#include "sc_conf.h"
#include "mdcctl.h"

static const char conf_usage[] =
	"usage: mdcctl conf check [--lenient] [--template] FILE...\n"
	"       mdcctl conf dump [--lenient] [--template] FILE [--format json]\n"
	"  --lenient   unknown keys, bad values, missing includes are warnings\n"
	"  --template  read template tokens ({{ }}, {% %}, <% %>, {name}) as opaque values";

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
 * errors that are not diagnostics (unreadable file) are printed here. */
static int load(const char *path, unsigned flags, struct sc_conf **out)
{
	struct mdc_ctx ctx;
	struct sc_conf *c = sc_conf_new();
	int rc;

	*out = c;
	if (!c) {
		fprintf(stderr, "mdcctl: error: out of memory\n");
		return MDC_ERR_NOMEM;
	}
	c->flags = flags;
	mdc_ctx_clear(&ctx);
	rc = sc_conf_load_file(c, path, &ctx);
	if (rc && !sc_conf_errors(c))
		fprintf(stderr, "%s: error: %s\n", path, ctx.msg);
	return rc;
}

/* Take --lenient / --template out of ARGV (in place); returns the
 * remaining count, or -1 after a usage error on an unknown option. */
static int conf_flags(struct mdcctl *g, int argc, char **argv, unsigned *flags, int *rc)
{
	int i, n = 0;
	bool files = false;

	*flags = 0;
	for (i = 0; i < argc; i++) {
		if (!files && !strcmp(argv[i], "--lenient"))
			*flags |= SC_PARSE_LENIENT;
		else if (!files && !strcmp(argv[i], "--template"))
			*flags |= SC_PARSE_TEMPLATE;
		else if (!files && !strcmp(argv[i], "--"))
			files = true;
		else if (!files && argv[i][0] == '-' && argv[i][1]) {
			*rc = mdcctl_usage(g, "conf: unknown option '%s'\n%s", argv[i], conf_usage);
			return -1;
		} else
			argv[n++] = argv[i];
	}
	return n;
}

static int conf_check(struct mdcctl *g, int argc, char **argv)
{
	json_object *arr = NULL;
	int i, worst = 0;
	unsigned flags;

	argc = conf_flags(g, argc, argv, &flags, &worst);
	if (argc < 0)
		return worst;
	if (argc < 1)
		return mdcctl_usage(g, "conf check: give one or more files\n%s", conf_usage);
	if (g->format == MDCCTL_JSON && !(arr = json_object_new_array()))
		return mdc_exit_code(MDC_ERR_NOMEM);
	for (i = 0; i < argc; i++) {
		struct sc_conf *c = NULL;
		int rc = load(argv[i], flags, &c);

		if (c && g->format == MDCCTL_TEXT)
			print_diags(c);
		if (c && arr) {
			json_object *o = sc_conf_to_json(c), *d = NULL, *e = json_object_new_object();

			if (o)
				d = json_object_get(mdc_json_get(o, "diagnostics"));
			json_object_object_add(e, "file", json_object_new_string(argv[i]));
			json_object_object_add(e, "ok", json_object_new_boolean(rc == 0));
			json_object_object_add(e, "diagnostics", d ? d : json_object_new_array());
			json_object_array_add(arr, e);
			json_object_put(o);
		}
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

	argc = conf_flags(g, argc, argv, &flags, &rc);
	if (argc < 0)
		return rc;
	if (argc != 1)
		return mdcctl_usage(g, "conf dump: give exactly one file\n%s", conf_usage);
	rc = load(argv[0], flags, &c);
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
	for (i = 0; i < sizeof(conf_cmds) / sizeof(conf_cmds[0]); i++)
		if (!strcmp(argv[1], conf_cmds[i].name))
			return conf_cmds[i].fn(g, argc - 2, argv + 2);
	return mdcctl_usage(g, "conf: unknown subcommand '%s'\n%s", argv[1], conf_usage);
}
