/* sc_tool.c - test helper for the slurm.conf engine.  (owner: slurm.conf engine)
 *
 *   sc_tool readback [--lenient] FILE   our parse, in sc_oracle --dump's format
 *   sc_tool render SPEC.json [BASE]     sc_render to stdout
 *   sc_tool gen SEED                    a random spec (sc_gen.c)
 *   sc_tool base                        the base those specs render on
 *   sc_tool translate SPEC BASELINE EDITED
 *                                       the intent, one op per line, then
 *                                       "note: ..." and "refusal: ..."
 * Exit 0, 1 on a library error (message on stderr), 2 on usage.
 */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "mdc_json.h"
#include "sc_conf.h"
#include "sc_gen.h"
#include "sc_options.h"
#include "sc_render.h"
#include "sc_translate.h"

/* ---- readback: the values Slurm's typed handlers would store ---- */

static unsigned long long slurm_uint(const char *v, int bits)
{
	char *end;
	unsigned long long n;

	if (!strcasecmp(v, "UNLIMITED") || !strcasecmp(v, "INFINITE"))
		return bits == 16 ? 0xffffULL : 0xffffffffULL;
	n = strtoull(v, &end, 0);
	if (bits == 32 && (*end == 'k' || *end == 'K'))
		n *= 1024;
	return n;
}

static const char *or_null(const char *v)
{
	return v ? v : "(null)";
}

static void print_time(const char *key, const char *v, const char *unset)
{
	long m;

	if (!v) {
		printf(" %s=%s", key, unset);
		return;
	}
	m = sc_time_minutes(v);
	if (m == -2)
		printf(" %s=INFINITE", key);
	else
		printf(" %s=%ld", key, m);
}

static bool slurm_bool(const char *v)
{
	return v && (!strcasecmp(v, "yes") || !strcasecmp(v, "up") ||
		     !strcasecmp(v, "true") || !strcmp(v, "1"));
}

static void readback_globals(const struct sc_conf *c)
{
	size_t i;

	for (i = 0; i < c->nglobals; i++) {
		const struct sc_kv *kv = &c->globals[i];
		const struct sc_option *opt = sc_opt_find(kv->key, SC_SCOPE_CLUSTER);

		if (!opt || (opt->flags & (SC_OPT_RECORD | SC_OPT_MULTI)))
			continue;
		switch (opt->type) {
		case SC_T_UINT16:
			printf("G %s=%llu\n", opt->name, slurm_uint(kv->value, 16) & 0xffff);
			break;
		case SC_T_UINT32:
			printf("G %s=%llu\n", opt->name, slurm_uint(kv->value, 32) & 0xffffffffULL);
			break;
		case SC_T_UINT64:
		case SC_T_MEMORY:
			printf("G %s=%llu\n", opt->name, slurm_uint(kv->value, 64));
			break;
		case SC_T_BOOL:
			printf("G %s=%s\n", opt->name, slurm_bool(kv->value) ? "YES" : "NO");
			break;
		default:
			printf("G %s=%s\n", opt->name, kv->value);
		}
	}
}

static const char *upper_state(const char *v, char *buf, size_t sz)
{
	size_t i;

	if (!v)
		return "UP";
	for (i = 0; v[i] && i + 1 < sz; i++)
		buf[i] = (char) (v[i] >= 'a' && v[i] <= 'z' ? v[i] - 32 : v[i]);
	buf[i] = '\0';
	return buf;
}

static void readback_records(const struct sc_conf *c)
{
	size_t i;
	enum sc_rec_type order[] = { SC_REC_NODE, SC_REC_PARTITION, SC_REC_NODESET, SC_REC_DOWNNODES };
	size_t o;

	for (o = 0; o < sizeof(order) / sizeof(order[0]); o++)
		for (i = 0; i < c->nrecs; i++) {
			const struct sc_record *r = &c->recs[i];

			if (r->type != order[o] || r->is_default)
				continue;
			switch (r->type) {
			case SC_REC_NODE: {
				const char *host = sc_record_get(r, "NodeHostname");
				const char *addr = sc_record_get(r, "NodeAddr");
				/* Slurm reads Feature= first, Features= only without it */
				const char *feat = sc_record_get(r, "Feature");
				const char *mem = sc_record_get(r, "RealMemory");
				const char *w = sc_record_get(r, "Weight");
				const char *tmp = sc_record_get(r, "TmpDisk");

				if (!feat)
					feat = sc_record_get(r, "Features");
				if (!host)
					host = r->name;
				if (!addr)
					addr = host;
				printf("NodeName=%s NodeHostname=%s NodeAddr=%s Feature=%s Gres=%s State=%s Reason=%s RealMemory=%llu Weight=%llu TmpDisk=%llu Port=%s\n",
				       r->name, host, addr, or_null(feat),
				       or_null(sc_record_get(r, "Gres")),
				       or_null(sc_record_get(r, "State")),
				       or_null(sc_record_get(r, "Reason")),
				       mem ? slurm_uint(mem, 64) : 1ULL,
				       w ? slurm_uint(w, 32) : 1ULL,
				       tmp ? slurm_uint(tmp, 32) : 0ULL,
				       or_null(sc_record_get(r, "Port")));
				break;
			}
			case SC_REC_PARTITION: {
				const char *tier = sc_record_get(r, "PriorityTier");
				const char *jf = sc_record_get(r, "PriorityJobFactor");
				const char *prio = sc_record_get(r, "Priority");
				const char *groups = sc_record_get(r, "AllowGroups");
				char st[32];

				if (!tier)
					tier = prio;
				if (!jf)
					jf = prio;
				printf("PartitionName=%s Nodes=%s Default=%s", r->name,
				       or_null(sc_record_get(r, "Nodes")),
				       slurm_bool(sc_record_get(r, "Default")) ? "YES" : "NO");
				print_time("MaxTime", sc_record_get(r, "MaxTime"), "INFINITE");
				print_time("DefaultTime", sc_record_get(r, "DefaultTime"), "(unset)");
				/* AllowGroups=ALL is stored as "no restriction" (NULL) */
				if (groups && !strcasecmp(groups, "ALL"))
					groups = NULL;
				printf(" PriorityTier=%llu PriorityJobFactor=%llu Hidden=%s AllowGroups=%s State=%s\n",
				       tier ? slurm_uint(tier, 16) : 1ULL, jf ? slurm_uint(jf, 16) : 1ULL,
				       slurm_bool(sc_record_get(r, "Hidden")) ? "YES" : "NO",
				       or_null(groups),
				       upper_state(sc_record_get(r, "State"), st, sizeof(st)));
				break;
			}
			case SC_REC_NODESET:
				printf("NodeSet=%s Feature=%s Nodes=%s\n", r->name,
				       or_null(sc_record_get(r, "Feature")),
				       or_null(sc_record_get(r, "Nodes")));
				break;
			case SC_REC_DOWNNODES:
				printf("DownNodes=%s Reason=%s State=%s\n", r->name,
				       or_null(sc_record_get(r, "Reason")),
				       or_null(sc_record_get(r, "State")));
				break;
			default:
				break;
			}
		}
}

static int readback(int argc, char **argv)
{
	struct mdc_ctx ctx;
	struct sc_conf *c = sc_conf_new();
	int rc;

	mdc_ctx_clear(&ctx);
	if (!c)
		return 1;
	if (argc == 2 && !strcmp(argv[0], "--lenient")) {
		c->flags |= SC_PARSE_LENIENT;
		argv++;
		argc--;
	}
	if (argc != 1) {
		sc_conf_free(c);
		return 2;
	}
	rc = sc_conf_load_file(c, argv[0], &ctx);
	if (rc) {
		fprintf(stderr, "%s\n", ctx.msg);
		printf("PARSE-ERROR\n");
	}
	readback_globals(c);
	readback_records(c);
	sc_conf_free(c);
	return rc ? 1 : 0;
}

static int render(int argc, char **argv)
{
	struct mdc_ctx ctx;
	struct mdc_buf out = MDC_BUF_INIT;
	json_object *spec = NULL;
	char *base = NULL;
	int rc;

	mdc_ctx_clear(&ctx);
	if (argc < 1 || argc > 2)
		return 2;
	rc = mdc_json_parse_file(argv[0], &spec, &ctx);
	if (!rc && argc == 2)
		rc = mdc_read_file(argv[1], &base, NULL, &ctx);
	if (!rc)
		rc = sc_render(spec, base, argc == 2 ? argv[1] : NULL, &out, &ctx);
	if (rc)
		fprintf(stderr, "%s\n", ctx.msg);
	else
		fputs(mdc_buf_str(&out), stdout);
	mdc_buf_free(&out);
	free(base);
	json_object_put(spec);
	return rc ? 1 : 0;
}

static int gen(int argc, char **argv)
{
	json_object *spec;

	if (argc != 1)
		return 2;
	spec = sc_gen_spec((unsigned) strtoul(argv[0], NULL, 10));
	if (!spec)
		return 1;
	printf("%s\n", mdc_json_str(spec, true));
	json_object_put(spec);
	return 0;
}

static int base(int argc, char **argv)
{
	(void) argv;
	if (argc)
		return 2;
	fputs(sc_gen_base, stdout);
	return 0;
}

static int translate(int argc, char **argv)
{
	struct mdc_ctx ctx;
	struct sc_conf *b = NULL, *e = NULL;
	struct mdc_intent in = MDC_INTENT_INIT;
	json_object *spec = NULL;
	size_t i, j;
	int rc;

	mdc_ctx_clear(&ctx);
	if (argc != 3)
		return 2;
	rc = mdc_json_parse_file(argv[0], &spec, &ctx);
	if (!rc)
		rc = sc_conf_parse_file(argv[1], &b, &ctx);
	if (!rc)
		rc = sc_conf_parse_file(argv[2], &e, &ctx);
	if (!rc)
		rc = sc_translate(b, e, spec, &in, &ctx);
	if (rc) {
		fprintf(stderr, "%s\n", ctx.msg);
		goto out;
	}
	for (i = 0; i < in.n; i++) {
		const struct mdc_op *o = &in.ops[i];

		printf("%s", mdc_op_kind_name(o->kind));
		if (o->id)
			printf(" id=%s", o->id);
		if (o->key)
			printf(" key=%s", o->key);
		if (o->value)
			printf(" value=%s", o->value);
		for (j = 0; j < o->list.n; j++)
			printf(" pool=%s", o->list.v[j]);
		for (j = 0; j < o->kv.n; j++)
			printf(" kv=%s", o->kv.v[j]);
		printf(" where=%s\n", o->where ? o->where : "-");
	}
	for (i = 0; i < in.notes.n; i++)
		printf("note: %s\n", in.notes.v[i]);
	for (i = 0; i < in.refusals.n; i++)
		printf("refusal: %s\n", in.refusals.v[i]);
out:
	mdc_intent_free(&in);
	sc_conf_free(b);
	sc_conf_free(e);
	json_object_put(spec);
	return rc ? 1 : 0;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int, char **);
	} cmds[] = {
		{ "base", base }, { "gen", gen }, { "readback", readback }, { "render", render },
		{ "translate", translate },
	};
	size_t i;
	int rc = 2;

	for (i = 0; argc > 1 && i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name))
			rc = cmds[i].fn(argc - 2, argv + 2);
	if (rc == 2)
		fprintf(stderr, "usage: sc_tool base | gen SEED | readback [--lenient] FILE | render SPEC [BASE] | translate SPEC BASELINE EDITED\n");
	if (fflush(stdout) || ferror(stdout))
		return 1;
	return rc;
}
