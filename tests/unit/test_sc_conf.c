/* test_sc_conf.c - the slurm.conf parser: grammar, records, DEFAULT,
 * includes, diagnostics.  (owner: slurm.conf engine) */
#include "config.h"
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <regex.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "mdc_buf.h"
#include "mdc_str.h"
#include "sc_conf.h"
#include "sc_dump.h"

static char tmpdir[64];

static int setup(void **state)
{
	(void) state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_sc_conf.XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void) state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static void put(const char *name, const char *text)
{
	struct mdc_ctx ctx;
	char *p = mdc_path_join(tmpdir, name);

	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_write_file_atomic(p, text, strlen(text), 0644, &ctx), 0);
	free(p);
}

/* Parse TEXT; returns the conf (NULL on error with CTX filled). */
static struct sc_conf *parse(const char *text, struct mdc_ctx *ctx)
{
	struct sc_conf *c = NULL;

	mdc_ctx_clear(ctx);
	sc_conf_parse_string(text, strlen(text), "t.conf", &c, ctx);
	return c;
}

static size_t warnings(const struct sc_conf *c)
{
	return c->ndiags - sc_conf_errors(c);
}

static void test_grammar(void **state)
{
	struct mdc_ctx ctx;
	struct sc_conf *c;

	(void) state;
	c = parse("# comment\n"
		  "clustername=c1\n"
		  "  MailDomain =  x.org   # trailing comment\n"
		  "SchedulerParameters=a\\#b,c\\\\d\n"
		  "MailProg=\"/bin/mail with space\"\n"
		  "PriorityWeightAge=\\\n"
		  "   1000\n"
		  "JobSubmitPlugins=\"\"\n", &ctx);
	assert_non_null(c);
	assert_string_equal(sc_conf_get(c, "ClusterName"), "c1");
	assert_string_equal(sc_conf_global(c, "ClusterName")->key, "clustername");
	assert_string_equal(sc_conf_get(c, "maildomain"), "x.org");
	assert_int_equal(sc_conf_global(c, "MailDomain")->line, 3);
	assert_int_equal(sc_conf_global(c, "MailDomain")->col, 3);
	assert_string_equal(sc_conf_get(c, "SchedulerParameters"), "a#b,c\\d");
	assert_string_equal(sc_conf_get(c, "MailProg"), "/bin/mail with space");
	assert_string_equal(sc_conf_get(c, "PriorityWeightAge"), "1000");
	assert_int_equal(sc_conf_global(c, "PriorityWeightAge")->line, 6);
	assert_string_equal(sc_conf_get(c, "JobSubmitPlugins"), "");
	assert_int_equal(c->ndiags, 0);
	sc_conf_free(c);

	/* an even run of backslashes does not continue the line */
	c = parse("MailDomain=a\\\\\nMailProg=b\n", &ctx);
	assert_non_null(c);
	assert_string_equal(sc_conf_get(c, "MailDomain"), "a\\");
	assert_string_equal(sc_conf_get(c, "MailProg"), "b");
	sc_conf_free(c);
}

static void test_repeat_warns(void **state)
{
	struct mdc_ctx ctx;
	struct sc_conf *c;
	char *m;

	(void) state;
	c = parse("MailDomain=a\nMailProg=x\nMAILDOMAIN=b\n", &ctx);
	assert_non_null(c);
	assert_string_equal(sc_conf_get(c, "MailDomain"), "b");
	assert_int_equal(sc_conf_global(c, "MailDomain")->line, 3);
	assert_int_equal(warnings(c), 1);
	m = sc_diag_format(&c->diags[0]);
	assert_string_equal(m, "t.conf:3:1: warning: \"MailDomain\" set again (first at t.conf:1): the last value is used");
	free(m);
	sc_conf_free(c);
	/* SlurmctldHost repeats legitimately (backup controllers) */
	c = parse("SlurmctldHost=a\nSlurmctldHost=b(10.0.0.2)\n", &ctx);
	assert_non_null(c);
	assert_int_equal(c->nglobals, 2);
	assert_int_equal(c->ndiags, 0);
	sc_conf_free(c);
}

static void test_records_and_defaults(void **state)
{
	struct mdc_ctx ctx;
	struct sc_conf *c;
	const struct sc_record *r;

	(void) state;
	c = parse("NodeName=DEFAULT RealMemory=100 Weight=3\n"
		  "NodeName=n1 Weight=5\n"
		  "NodeName=DEFAULT Gres=gpu:1\n"
		  "NodeName=n[2-3]\n"
		  "PartitionName=DEFAULT MaxTime=10\n"
		  "PartitionName=p Nodes=n1,n[2-3] Default=YES\n"
		  "PartitionName=DEFAULT State=DOWN\n"
		  "PartitionName=q MaxTime=20\n"
		  "NodeSet=ns Feature=gpu\n"
		  "DownNodes=n1 Reason=\"bad disk\" State=DOWN\n", &ctx);
	assert_non_null(c);
	r = sc_conf_record(c, SC_REC_NODE, "n1");
	assert_non_null(r);
	assert_string_equal(sc_record_get(r, "Weight"), "5");
	assert_false(sc_record_kv(r, "Weight")->from_default);
	assert_string_equal(sc_record_get(r, "RealMemory"), "100");
	assert_true(sc_record_kv(r, "RealMemory")->from_default);
	assert_null(sc_record_get(r, "Gres"));	/* defaults apply forward only */
	r = sc_conf_record(c, SC_REC_NODE, "n[2-3]");
	assert_string_equal(sc_record_get(r, "Gres"), "gpu:1");
	assert_string_equal(sc_record_get(r, "RealMemory"), "100");	/* kept from the first DEFAULT */
	r = sc_conf_record(c, SC_REC_PARTITION, "p");
	assert_string_equal(sc_record_get(r, "MaxTime"), "10");
	assert_null(sc_record_get(r, "State"));
	r = sc_conf_record(c, SC_REC_PARTITION, "q");
	assert_string_equal(sc_record_get(r, "MaxTime"), "20");
	assert_string_equal(sc_record_get(r, "State"), "DOWN");
	assert_string_equal(sc_record_get(sc_conf_record(c, SC_REC_NODESET, "ns"), "Feature"), "gpu");
	assert_string_equal(sc_record_get(sc_conf_record(c, SC_REC_DOWNNODES, "n1"), "Reason"), "bad disk");
	assert_null(sc_conf_record(c, SC_REC_PARTITION, "DEFAULT"));
	assert_int_equal(c->ndiags, 0);
	sc_conf_free(c);
}

static void test_same_name(void **state)
{
	struct mdc_ctx ctx;
	struct sc_conf *c;
	char *m;

	(void) state;
	c = parse("PartitionName=p MaxTime=10\nPartitionName=p MaxTime=20\n", &ctx);
	assert_non_null(c);
	assert_string_equal(sc_record_get(sc_conf_record(c, SC_REC_PARTITION, "p"), "MaxTime"), "10");
	assert_int_equal(c->nrecs, 2);
	m = sc_diag_format(&c->diags[0]);
	assert_non_null(strstr(m, "t.conf:2:"));
	assert_non_null(strstr(m, "first at t.conf:1"));
	free(m);
	sc_conf_free(c);
}

/* Each bad input: exactly one error, in file:line:col: error: form. */
static void test_errors(void **state)
{
	static const struct {
		const char *text;
		const char *msg;
	} cases[] = {
		{ "MailDomain=a\nFoo=bar\n", "t.conf:2:1: error: unknown key \"Foo\"" },
		{ "PriorityWeightAg=1\n", "(did you mean \"PriorityWeightAge\"?)" },
		{ "Mail_Domain=x\n", "Slurm does not ignore underscores" },
		{ "PartitionName=p Weight=3\n", "t.conf:1:17: error: key \"Weight\" is not allowed on a PartitionName line" },
		{ "PartitionName=p MaxTime=abc\n", "t.conf:1:25: error: bad value \"abc\" for \"MaxTime\"" },
		{ "MaxJobCount=12x\n", "bad value \"12x\" for \"MaxJobCount\"" },
		{ "MailDomain=a MailProg=b\n", "t.conf:1:14: error: unexpected text" },
		{ "MailDomain=\n", "t.conf:1:1: error: no value after \"MailDomain=\" (write MailDomain=\"\" for an empty value)" },
		{ "just words\n", "expected Key=Value, found \"just words\"" },
		{ "MailDomain=a\\\n", "t.conf:1:13: error: the last line ends with a continuation backslash" },
		{ "Include=x.conf\n", "Include FILE" },
		{ "CacheGroups=1\n", "no longer a Slurm key" },
		{ "StorageHost=db\n", "slurmdbd.conf key" },
		{ "PartitionName=p junk\n", "unexpected text \"junk\"" },
		{ "Hidden=YES\n", "not allowed in slurm.conf" },
	};
	struct mdc_ctx ctx;
	size_t i;

	(void) state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sc_conf *c = sc_conf_new();
		int rc;

		mdc_ctx_clear(&ctx);
		rc = sc_conf_load_string(c, cases[i].text, strlen(cases[i].text), "t.conf", &ctx);
		if (rc != MDC_ERR_PARSE || !strstr(ctx.msg, cases[i].msg)) {
			print_error("case %zu: rc %d, message '%s', expected '%s'\n", i, rc,
				    ctx.msg, cases[i].msg);
			fail();
		}
		assert_int_equal(sc_conf_errors(c), 1);
		sc_conf_free(c);
	}
}

static void test_binary_input(void **state)
{
	static const char nul[] = "MailDomain=ab\0cd\n";
	static const char bad_utf8[] = "MailDomain=\xff\xfe\n";
	struct mdc_ctx ctx;
	struct sc_conf *c = NULL;
	char *big;
	size_t i;

	(void) state;
	mdc_ctx_clear(&ctx);
	assert_int_equal(sc_conf_parse_string(nul, sizeof(nul) - 1, "t.conf", &c, &ctx), MDC_ERR_PARSE);
	assert_null(c);
	assert_string_equal(ctx.msg, "t.conf:1:14: error: NUL byte in the file (is it a slurm.conf?)");
	mdc_ctx_clear(&ctx);
	assert_int_equal(sc_conf_parse_string(bad_utf8, sizeof(bad_utf8) - 1, "t.conf", &c, &ctx), MDC_ERR_PARSE);
	assert_non_null(strstr(ctx.msg, "t.conf:1:12: error: invalid UTF-8"));
	/* a 1 MB line */
	big = malloc(1 << 20);
	assert_non_null(big);
	memcpy(big, "MailDomain=", 11);
	for (i = 11; i < (1 << 20) - 1; i++)
		big[i] = 'x';
	big[i] = '\n';
	mdc_ctx_clear(&ctx);
	assert_int_equal(sc_conf_parse_string(big, 1 << 20, "t.conf", &c, &ctx), MDC_ERR_PARSE);
	assert_non_null(strstr(ctx.msg, "t.conf:1:1: error: line longer than"));
	free(big);
}

static void test_accepted_oddities(void **state)
{
	struct mdc_ctx ctx;
	struct sc_conf *c;
	char *m;

	(void) state;
	/* CRLF: Slurm reads the \r as a blank */
	c = parse("MailDomain=x.org\r\nPartitionName=p State=UP\r\n", &ctx);
	assert_non_null(c);
	assert_string_equal(sc_conf_get(c, "MailDomain"), "x.org");
	assert_string_equal(sc_record_get(sc_conf_record(c, SC_REC_PARTITION, "p"), "State"), "UP");
	assert_int_equal(warnings(c), 1);
	assert_non_null(strstr(c->diags[0].msg, "CRLF"));
	sc_conf_free(c);
	/* unterminated quote: Slurm keeps the quote in the value */
	c = parse("PartitionName=p AllowGroups=\"a\n", &ctx);
	assert_non_null(c);
	assert_string_equal(sc_record_get(sc_conf_record(c, SC_REC_PARTITION, "p"), "AllowGroups"), "\"a");
	assert_int_equal(warnings(c), 1);
	m = sc_diag_format(&c->diags[0]);
	assert_non_null(strstr(m, "t.conf:1:29: warning: unterminated quote"));
	free(m);
	sc_conf_free(c);
	/* hex numbers and operators, as Slurm's strtoul(.., 0) and regex */
	c = parse("MaxTasksPerNode=0x10\nMailDomain+=x\n", &ctx);
	assert_non_null(c);
	assert_int_equal(sc_conf_global(c, "MailDomain")->op, '+');
	sc_conf_free(c);
}

static void test_includes(void **state)
{
	struct mdc_ctx ctx;
	struct sc_conf *c = NULL;
	char *main_path = mdc_path_join(tmpdir, "slurm.conf");
	int rc;

	(void) state;
	put("slurm.conf", "ClusterName=Alpha\ninclude nodes.conf\nInclude %c-parts.conf\n");
	put("nodes.conf", "NodeName=n1 CPUs=2\n");
	put("alpha-parts.conf", "PartitionName=p Nodes=n1\n");
	mdc_ctx_clear(&ctx);
	rc = sc_conf_parse_file(main_path, &c, &ctx);
	assert_int_equal(rc, 0);
	assert_non_null(sc_conf_record(c, SC_REC_NODE, "n1"));
	assert_non_null(strstr(sc_conf_record(c, SC_REC_PARTITION, "p")->file, "alpha-parts.conf"));
	assert_int_equal(c->files.n, 3);
	sc_conf_free(c);

	/* missing include: an error at once, no retry */
	put("slurm.conf", "ClusterName=a\nInclude missing.conf\n");
	mdc_ctx_clear(&ctx);
	assert_int_equal(sc_conf_parse_file(main_path, &c, &ctx), MDC_ERR_PARSE);
	assert_non_null(strstr(ctx.msg, "slurm.conf:2:9: error: cannot read included file"));
	/* loop */
	put("slurm.conf", "Include a.conf\n");
	put("a.conf", "MailDomain=x\nInclude slurm.conf\n");
	mdc_ctx_clear(&ctx);
	assert_int_equal(sc_conf_parse_file(main_path, &c, &ctx), MDC_ERR_PARSE);
	assert_non_null(strstr(ctx.msg, "a.conf:2:9: error: include loop"));
	/* glob */
	put("slurm.conf", "Include *.conf\n");
	mdc_ctx_clear(&ctx);
	assert_int_equal(sc_conf_parse_file(main_path, &c, &ctx), MDC_ERR_PARSE);
	assert_non_null(strstr(ctx.msg, "wildcards are not supported"));
	/* %c before ClusterName */
	put("slurm.conf", "Include %c.conf\n");
	mdc_ctx_clear(&ctx);
	assert_int_equal(sc_conf_parse_file(main_path, &c, &ctx), MDC_ERR_PARSE);
	assert_non_null(strstr(ctx.msg, "needs ClusterName"));
	/* depth: d0 includes d1 ... each a new file */
	{
		char name[32], text[64];
		int i;

		for (i = 0; i <= SC_INCLUDE_MAX + 1; i++) {
			snprintf(name, sizeof(name), "d%d.conf", i);
			snprintf(text, sizeof(text), "Include d%d.conf\n", i + 1);
			put(name, text);
		}
		put("slurm.conf", "Include d0.conf\n");
		mdc_ctx_clear(&ctx);
		assert_int_equal(sc_conf_parse_file(main_path, &c, &ctx), MDC_ERR_PARSE);
		assert_non_null(strstr(ctx.msg, "nested includes"));
	}
	/* disabled includes */
	c = sc_conf_new();
	c->flags = SC_PARSE_NO_INCLUDE;
	mdc_ctx_clear(&ctx);
	assert_int_equal(sc_conf_load_string(c, "include /etc/passwd\n", 19, "t.conf", &ctx), MDC_ERR_PARSE);
	assert_non_null(strstr(ctx.msg, "includes are disabled"));
	sc_conf_free(c);
	/* a directory is not a file */
	put("slurm.conf", "Include /tmp\n");
	mdc_ctx_clear(&ctx);
	assert_int_equal(sc_conf_parse_file(main_path, &c, &ctx), MDC_ERR_PARSE);
	assert_non_null(strstr(ctx.msg, "not a regular file"));
	free(main_path);
}

static void test_lenient_and_template(void **state)
{
	struct mdc_ctx ctx;
	struct sc_conf *c = sc_conf_new();
	static const char tpl[] =
		"ClusterName={{ cluster_name }}\n"
		"{% if x %}\n"
		"MaxJobCount={max_jobs}\n"
		"AuthType=auth/{auth}\n"
		"<% end %>\n"
		"Include {{ extra }}.conf\n";
	static const char legacy[] =
		"ControlMachine=a ControlAddr=b\nCacheGroups=0\nInclude none.conf\n";

	(void) state;
	c->flags = SC_PARSE_TEMPLATE;
	mdc_ctx_clear(&ctx);
	assert_int_equal(sc_conf_load_string(c, tpl, sizeof(tpl) - 1, "t.conf", &ctx), 0);
	assert_string_equal(sc_conf_get(c, "ClusterName"), SC_TEMPLATE_TOKEN);
	assert_string_equal(sc_conf_get(c, "MaxJobCount"), SC_TEMPLATE_TOKEN);
	assert_string_equal(sc_conf_get(c, "AuthType"), "auth/" SC_TEMPLATE_TOKEN);
	assert_int_equal(sc_conf_errors(c), 0);
	assert_int_equal(warnings(c), 1);	/* the templated include */
	sc_conf_free(c);

	c = sc_conf_new();
	c->flags = SC_PARSE_LENIENT;
	mdc_ctx_clear(&ctx);
	assert_int_equal(sc_conf_load_string(c, legacy, sizeof(legacy) - 1, "t.conf", &ctx), 0);
	assert_string_equal(sc_conf_get(c, "ControlAddr"), "b");
	assert_string_equal(sc_conf_get(c, "CacheGroups"), "0");
	assert_int_equal(warnings(c), 3);
	sc_conf_free(c);
}

/* A key and its spelling with an underscore are two keys to Slurm (the
 * second is unknown): each accessor finds the one spelled so, and the
 * underscore-blind match (C7, for keys named as the API names them) only
 * when the line has no such spelling.  The fuzzer found the first-match
 * lookup answering "Weight" with the value of "Weight_". */
static void test_key_spellings(void **state)
{
	struct mdc_ctx ctx;
	struct sc_conf *c = sc_conf_new();
	static const char text[] =
		"ClusterName=x\nMaxJobCount_=5\nMaxJobCount=10\n"
		"NodeName=n1 CPUs=2 Weight_=7 Weight=3\n"
		"PartitionName=p Nodes=n1 Max_Time=5 MaxTime=6 PriorityTier=2\n";
	static const char rest[] = "X=1 PartitionName=p Y=2\nX=3 PartitionName=o\n";
	const struct sc_record *n, *p;

	(void) state;
	c->flags = SC_PARSE_LENIENT;
	mdc_ctx_clear(&ctx);
	assert_int_equal(sc_conf_load_string(c, text, sizeof(text) - 1, "t.conf", &ctx), 0);
	assert_string_equal(sc_conf_get(c, "MaxJobCount"), "10");
	assert_string_equal(sc_conf_get(c, "maxjobcount_"), "5");
	assert_string_equal(sc_conf_get(c, "Cluster_Name"), "x");
	assert_non_null(n = sc_conf_record(c, SC_REC_NODE, "n1"));
	assert_string_equal(sc_record_get(n, "Weight"), "3");
	assert_string_equal(sc_record_get(n, "Weight_"), "7");
	assert_non_null(p = sc_conf_record(c, SC_REC_PARTITION, "p"));
	assert_string_equal(sc_record_get(p, "MaxTime"), "6");
	assert_string_equal(sc_record_get(p, "max_time"), "5");
	assert_string_equal(sc_record_get(p, "Priority_Tier"), "2");
	assert_null(sc_record_get(p, "Max_Time_Limit"));
	sc_conf_free(c);

	/* lenient reads the rest of a line as globals, but a record key
	 * there defines nothing and is no setting (the fuzzer found two such
	 * "PartitionName" globals planned as a config change) */
	c = sc_conf_new();
	c->flags = SC_PARSE_LENIENT;
	mdc_ctx_clear(&ctx);
	assert_int_equal(sc_conf_load_string(c, rest, sizeof(rest) - 1, "t.conf", &ctx), 0);
	assert_null(sc_conf_get(c, "PartitionName"));
	assert_null(sc_conf_record(c, SC_REC_PARTITION, "p"));
	assert_string_equal(sc_conf_get(c, "Y"), "2");
	assert_string_equal(sc_conf_get(c, "X"), "3");
	sc_conf_free(c);
}

static void test_many_lines(void **state)
{
	struct mdc_buf b = MDC_BUF_INIT;
	struct mdc_ctx ctx;
	struct sc_conf *c = NULL;
	int i;

	(void) state;
	for (i = 0; i < 100000; i++)
		assert_int_equal(mdc_buf_addf(&b, "NodeName=n%d CPUs=4 # node %d\n", i, i), 0);
	mdc_ctx_clear(&ctx);
	assert_int_equal(sc_conf_parse_string(b.s, b.len, "big.conf", &c, &ctx), 0);
	assert_int_equal(c->nrecs, 100000);
	assert_int_equal(c->recs[99999].line, 100000);
	sc_conf_free(c);
	/* one bad line near the end: one error naming it */
	assert_int_equal(mdc_buf_adds(&b, "Bogus=1\n"), 0);
	mdc_ctx_clear(&ctx);
	assert_int_equal(sc_conf_parse_string(b.s, b.len, "big.conf", &c, &ctx), MDC_ERR_PARSE);
	assert_non_null(strstr(ctx.msg, "big.conf:100001:1: error: unknown key \"Bogus\""));
	mdc_buf_free(&b);
}

static void test_json(void **state)
{
	struct mdc_ctx ctx;
	struct sc_conf *c;
	json_object *j, *recs, *keys;

	(void) state;
	c = parse("MailDomain=x\nNodeName=DEFAULT Weight=2\nNodeName=n1 CPUs=4\n", &ctx);
	assert_non_null(c);
	j = sc_conf_to_json(c);
	assert_non_null(j);
	assert_true(json_object_object_get_ex(j, "records", &recs));
	assert_int_equal(json_object_array_length(recs), 2);
	assert_true(json_object_object_get_ex(json_object_array_get_idx(recs, 1), "keys", &keys));
	assert_int_equal(json_object_array_length(keys), 2);
	assert_string_equal(json_object_get_string(json_object_object_get(
		json_object_array_get_idx(keys, 1), "key")), "Weight");
	assert_true(json_object_get_boolean(json_object_object_get(
		json_object_array_get_idx(keys, 1), "from_default")));
	json_object_put(j);
	sc_conf_free(c);
	assert_int_equal(sc_time_minutes("2-3:04:05"), 3065);
	assert_int_equal(sc_time_minutes("0:59"), 1);
	assert_int_equal(sc_time_minutes("-1"), -2);
	assert_int_equal(sc_time_minutes("1-2-3"), -1);
	/* parse_time.c: "D-" is D days; a colon must follow a number */
	assert_int_equal(sc_time_minutes("2-"), 2880);
	assert_int_equal(sc_time_minutes("2-5"), 3180);
	assert_int_equal(sc_time_minutes("2-3:"), -1);
	assert_int_equal(sc_time_minutes("-"), -1);
	assert_int_equal(sc_time_minutes("-5"), -1);
	assert_int_equal(sc_time_minutes("5:"), -1);
}

/* The hand-written lexer against Slurm's own pattern run by glibc's
 * regexec (what parse_config.c does): same match or no match, same key,
 * operator, value and end, on hand-picked ties and on random lines over
 * the characters that matter to the grammar. */
static void lex_vs_regex(const regex_t *re, const char *s)
{
	regmatch_t m[8];
	struct sc_lexpair p;
	bool want = regexec(re, s, 8, m, 0) == 0, got = sc_lex_pair(s, 0, &p);

	if (want != got)
		fail_msg("\"%s\": regex %s, lexer %s", s, want ? "matches" : "does not match",
			 got ? "matches" : "does not");
	if (!want)
		return;
	if (p.key_off != (size_t) m[1].rm_so || p.key_len != (size_t) (m[1].rm_eo - m[1].rm_so) ||
	    p.op != (m[2].rm_so != m[2].rm_eo ? s[m[2].rm_so] : '=') ||
	    p.quoted != (m[5].rm_so != -1) ||
	    p.val_off != (size_t) m[p.quoted ? 5 : 6].rm_so ||
	    p.val_len != (size_t) (m[p.quoted ? 5 : 6].rm_eo - m[p.quoted ? 5 : 6].rm_so) ||
	    p.next != (size_t) m[3].rm_eo)
		fail_msg("\"%s\": the lexer's pair differs from the regex's", s);
}

static void test_lexer_is_the_regex(void **state)
{
	static const char *const fixed[] = {
		"a=b", "a=\"ab\" x", "a=\"\"", "a=\"a b\" x", "a=\"ab\"c d", "a= \"x\"", "a=\"x\"\t",
		"a=\"x", "a=\"x y", "a=", "a= ", "=b", " a =b", "a +=b", "a + =b", "a--=b", "a-=b",
		"a.b_c=d", "a/=\"\" ", "a*=\"q\"\"", "\ta\v=\fb\r", "a=b\nc=d", "\xc3\xa9=x",
		"a=\xc3\xa9", "a==b", "a=\"=\"",
	};
	static const char alpha[] = "aZ09_.-*+/=\" \t\n\v\x80#x";
	regex_t re;
	char s[24];
	unsigned seed = 12345;

	(void) state;
	assert_int_equal(regcomp(&re, SC_KV_PATTERN, REG_EXTENDED), 0);
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		lex_vs_regex(&re, fixed[i]);
	for (int n = 0; n < 200000; n++) {
		size_t len;

		seed = seed * 1103515245u + 12345u;
		len = (seed >> 16) % (sizeof(s) - 1);
		for (size_t i = 0; i < len; i++) {
			seed = seed * 1103515245u + 12345u;
			s[i] = alpha[(seed >> 16) % (sizeof(alpha) - 1)];
		}
		s[len] = '\0';
		/* most random lines have no '=' after a key: seed some that do */
		if (len > 3 && n % 2)
			s[1 + (seed >> 8) % (len - 2)] = '=';
		lex_vs_regex(&re, s);
	}
	regfree(&re);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grammar),
		cmocka_unit_test(test_repeat_warns),
		cmocka_unit_test(test_records_and_defaults),
		cmocka_unit_test(test_same_name),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_binary_input),
		cmocka_unit_test(test_accepted_oddities),
		cmocka_unit_test(test_includes),
		cmocka_unit_test(test_lenient_and_template),
		cmocka_unit_test(test_key_spellings),
		cmocka_unit_test(test_many_lines),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_lexer_is_the_regex),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
