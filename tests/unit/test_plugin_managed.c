/* test_plugin_managed.c - the managed-partition check the plugins share
 * (lib/mdc_managed): reading slurm.conf, the check and its message, the
 * mdc.conf reader, the fallback partition's access check.  (owner: plugins) */
#define _GNU_SOURCE	/* asprintf */
#include "config.h"
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include "mdc_managed.h"
#include "mdc_str.h"

static char tmpdir[] = "/tmp/test_plugin_managed.XXXXXX";

static char *write_tmp(const char *name, const char *text)
{
	char *path = mdc_path_join(tmpdir, name);
	FILE *fp;

	assert_non_null(path);
	assert_non_null(fp = fopen(path, "w"));
	assert_int_equal(fputs(text, fp) >= 0, 1);
	assert_int_equal(fclose(fp), 0);
	return path;
}

static const char conf_text[] =
	"ClusterName=lab\n"
	"SlurmctldHost=vm(127.0.0.1)\n"
	"NodeName=vm CPUs=2 State=UNKNOWN\n"
	"PartitionName=DEFAULT MaxTime=60\n"
	"PartitionName=debug Nodes=vm Default=YES\n"
	"Include parts.conf\n";
static const char parts_text[] =
	"PartitionName=long Nodes=vm MaxTime=INFINITE\n"
	"PartitionName=gpu Nodes=vm SomeFutureKey=1\n";

static void test_load(void **state)
{
	struct mdc_ctx ctx = { 0 };
	struct mdc_managed *m = NULL;
	char *p2 = write_tmp("parts.conf", parts_text), *p = write_tmp("slurm.conf", conf_text);

	(void) state;
	assert_int_equal(mdc_managed_load(p, &m, &ctx), 0);
	assert_non_null(m);
	/* DEFAULT is not a partition; included files count; an unknown key
	 * does not stop the plugins */
	assert_int_equal(m->parts.n, 3);
	assert_string_equal(m->parts.v[0], "debug");
	assert_string_equal(m->parts.v[1], "long");
	assert_string_equal(m->parts.v[2], "gpu");
	assert_string_equal(m->default_part, "debug");
	assert_string_equal(m->path, p);
	assert_true(mdc_managed_has(m, "long"));
	assert_false(mdc_managed_has(m, "Long"));	/* case-sensitive, as Slurm */
	assert_false(mdc_managed_has(m, "DEFAULT"));
	mdc_managed_free(m);
	free(p);
	free(p2);
}

static void test_check(void **state)
{
	struct mdc_ctx ctx = { 0 };
	struct mdc_managed *m = NULL;
	char *p2 = write_tmp("parts.conf", parts_text), *p = write_tmp("slurm.conf", conf_text);
	char *bad = NULL, *want = NULL;

	(void) state;
	assert_int_equal(mdc_managed_load(p, &m, &ctx), 0);
	assert_int_equal(mdc_managed_check(m, "debug", &bad, &ctx), 0);
	assert_null(bad);
	assert_int_equal(mdc_managed_check(m, "long,gpu", &bad, &ctx), 0);
	assert_int_equal(mdc_managed_check(m, NULL, &bad, &ctx), 0);
	assert_int_equal(mdc_managed_check(m, "", NULL, &ctx), 0);
	assert_int_equal(ctx.err, MDC_OK);

	assert_int_equal(mdc_managed_check(m, "debug,rt,x", &bad, &ctx), MDC_ERR_NOTFOUND);
	assert_string_equal(bad, "rt");
	assert_true(asprintf(&want,
		"partition 'rt' exists only at runtime (it is not in '%s') and disappears "
		"at the next regeneration of slurm.conf: persist it with 'mdc-scontrol create "
		"PartitionName=rt ...' or use a managed partition (debug, long, gpu)", p) > 0);
	assert_string_equal(ctx.msg, want);
	free(bad);
	free(want);
	mdc_managed_free(m);
	free(p);
	free(p2);
}

static void test_load_errors(void **state)
{
	struct mdc_ctx ctx = { 0 };
	struct mdc_managed *m = (struct mdc_managed *) 1;
	char *missing = mdc_path_join(tmpdir, "nope.conf");

	(void) state;
	assert_int_not_equal(mdc_managed_load(missing, &m, &ctx), 0);
	assert_null(m);
	assert_non_null(strstr(ctx.msg, "nope.conf"));
	free(missing);
}

static void test_conf_get(void **state)
{
	struct mdc_ctx ctx = { 0 };
	char *p = write_tmp("mdc.conf",
			    "# site settings\n"
			    "Endpoint = http://127.0.0.1:8080\n"
			    "job_submit_mode = reject # first\n"
			    "Unknown = kept out\n"
			    "JobSubmitMode=warn\n");
	char *v = NULL, *missing = mdc_path_join(tmpdir, "absent.conf");

	(void) state;
	assert_int_equal(mdc_managed_conf_get(p, "JobSubmitMode", false, &v, &ctx), 0);
	assert_string_equal(v, "warn");		/* the last one wins */
	free(v);
	assert_int_equal(mdc_managed_conf_get(p, "endpoint", false, &v, &ctx), 0);
	assert_string_equal(v, "http://127.0.0.1:8080");
	free(v);
	assert_int_equal(mdc_managed_conf_get(p, "Cluster", false, &v, &ctx), 0);
	assert_null(v);
	assert_int_equal(mdc_managed_conf_get(missing, "Cluster", true, &v, &ctx), 0);
	assert_null(v);
	assert_int_equal(mdc_managed_conf_get(missing, "Cluster", false, &v, &ctx), MDC_ERR_IO);
	assert_null(v);
	/* a file whose st_size says 0 and holds more than the first buffer
	 * (mdc_read_regular grows it) */
	{
		char *text = NULL;
		size_t len = 0;

		assert_int_equal(mdc_read_regular("/proc/self/smaps", 1 << 24, 0, &text, &len,
						  &ctx), 0);
		assert_true(len > 4096);
		assert_int_equal(strlen(text), len);
		free(text);
		assert_int_equal(mdc_read_regular("/proc/self/smaps", 4096, 0, &text, &len, &ctx),
				 MDC_ERR_IO);
		assert_null(text);
		mdc_ctx_clear(&ctx);
	}
	/* several keys in one read (spank_mdc's Cluster and Endpoint) */
	{
		const char *keys[] = { "Cluster", "JobSubmitMode", "Endpoint" };
		char *vals[3] = { NULL, NULL, NULL };

		assert_int_equal(mdc_managed_conf_getv(p, keys, 3, false, vals, &ctx), 0);
		assert_null(vals[0]);
		assert_string_equal(vals[1], "warn");
		assert_string_equal(vals[2], "http://127.0.0.1:8080");
		free(vals[1]);
		free(vals[2]);
		assert_int_equal(mdc_managed_conf_getv(missing, keys, 3, true, vals, &ctx), 0);
		assert_true(!vals[0] && !vals[1] && !vals[2]);
		assert_int_equal(mdc_managed_conf_getv(missing, keys, 3, false, vals, &ctx),
				 MDC_ERR_IO);
		assert_true(!vals[0] && !vals[1] && !vals[2]);
	}
	free(missing);
	free(p);
}

/* Every real slurm.conf of the corpus loads (the plugins must not stop
 * working on a site's file) or fails with a message, never crashes; the
 * Slurm example has its partition. */
static void test_corpus(void **state)
{
	const char *shared = getenv("MDC_SHARED");
	char *dir = NULL, *path;
	struct dirent *de;
	DIR *d;
	size_t n = 0;

	(void) state;
	if (!shared || !(dir = mdc_path_join(shared, "corpus/slurm.conf")) || !(d = opendir(dir))) {
		free(dir);
		skip();
	}
	while ((de = readdir(d))) {
		struct mdc_ctx ctx = { 0 };
		struct mdc_managed *m = NULL;

		if (!mdc_strcaseeq(strrchr(de->d_name, '.'), ".conf"))
			continue;
		assert_non_null(path = mdc_path_join(dir, de->d_name));
		if (mdc_managed_load(path, &m, &ctx) == 0) {
			assert_non_null(m);
			if (!strcmp(de->d_name, "SchedMD__slurm__etc_slurm.conf.example.conf"))
				assert_true(m->parts.n >= 1);
			n++;
		} else {
			assert_null(m);
			assert_true(ctx.msg[0] != '\0');
		}
		mdc_managed_free(m);
		free(path);
	}
	closedir(d);
	free(dir);
	assert_true(n > 0);
}

/* Hostile files (issue 16.6): a FIFO or a symlink to /dev/zero as
 * mdc.conf or slurm.conf is refused at once, never read or waited on (the
 * plugin runs inside slurmctld; a FIFO used to wedge every sbatch). */
static void test_hostile_files(void **state)
{
	char *fifo = mdc_path_join(tmpdir, "fifo"), *zero = mdc_path_join(tmpdir, "zero");
	char *v = NULL;
	struct mdc_managed *m = NULL;
	struct mdc_ctx ctx = { 0 };

	(void) state;
	assert_int_equal(mkfifo(fifo, 0644), 0);
	assert_int_equal(symlink("/dev/zero", zero), 0);
	assert_int_equal(mdc_managed_conf_get(fifo, "JobSubmitMode", true, &v, &ctx), MDC_ERR_IO);
	assert_null(v);
	assert_non_null(strstr(ctx.msg, "FIFO"));
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_managed_conf_get(zero, "JobSubmitMode", true, &v, &ctx), MDC_ERR_IO);
	assert_non_null(strstr(ctx.msg, "device"));
	mdc_ctx_clear(&ctx);
	assert_int_not_equal(mdc_managed_load(fifo, &m, &ctx), 0);
	assert_null(m);
	mdc_ctx_clear(&ctx);
	assert_int_not_equal(mdc_managed_load(zero, &m, &ctx), 0);
	assert_null(m);
	/* an included FIFO too */
	{
		char *inc = write_tmp("slurm.conf", "ClusterName=lab\nInclude fifo\n");

		mdc_ctx_clear(&ctx);
		assert_int_not_equal(mdc_managed_load(inc, &m, &ctx), 0);
		assert_non_null(strstr(ctx.msg, "regular file"));
		free(inc);
	}
	unlink(fifo);
	unlink(zero);
	free(fifo);
	free(zero);
}

/* An include tree that fans out (3 files each including 3 ...) stops at
 * the cap on included files, with a message, instead of running for
 * minutes. */
static void test_include_tree_cap(void **state)
{
	char name[64], text[256];
	struct mdc_managed *m = NULL;
	struct mdc_ctx ctx = { 0 };
	char *top, *p;

	(void) state;
	/* f0 includes f1 three times, f1 includes f2 three times ... f11:
	 * 3^11 = 177147 inclusions if nothing stopped it */
	for (int i = 0; i < 12; i++) {
		snprintf(name, sizeof(name), "f%d.conf", i);
		if (i < 11)
			snprintf(text, sizeof(text), "Include f%d.conf\nInclude f%d.conf\n"
				 "Include f%d.conf\n", i + 1, i + 1, i + 1);
		else
			snprintf(text, sizeof(text), "PartitionName=p Nodes=vm\n");
		free(write_tmp(name, text));
	}
	top = write_tmp("slurm.conf", "ClusterName=lab\nInclude f0.conf\n");
	assert_int_not_equal(mdc_managed_load(top, &m, &ctx), 0);
	assert_null(m);
	assert_non_null(strstr(ctx.msg, "included files in all"));
	for (int i = 0; i < 12; i++) {
		snprintf(name, sizeof(name), "f%d.conf", i);
		p = mdc_path_join(tmpdir, name);
		unlink(p);
		free(p);
	}
	free(top);
}

/* Many partitions: every one found, duplicates kept once, file order
 * kept (the hash index; timing is measured in bench/, not here). */
static void test_many_partitions(void **state)
{
	enum { N = 20000 };
	char *path = mdc_path_join(tmpdir, "slurm.conf"), name[32];
	struct mdc_managed *m = NULL;
	struct mdc_ctx ctx = { 0 };
	FILE *fp;

	(void) state;
	assert_non_null(fp = fopen(path, "w"));
	fputs("ClusterName=lab\nNodeName=vm CPUs=2\n", fp);
	for (int i = 0; i < N; i++)
		fprintf(fp, "PartitionName=p%d Nodes=vm%s\n", i, i == 7 ? " Default=YES" : "");
	fputs("PartitionName=p5 MaxTime=10\n", fp);	/* a second line for p5 */
	assert_int_equal(fclose(fp), 0);
	assert_int_equal(mdc_managed_load(path, &m, &ctx), 0);
	assert_int_equal(m->parts.n, N);
	assert_string_equal(m->parts.v[0], "p0");
	assert_string_equal(m->parts.v[N - 1], "p19999");
	assert_string_equal(m->default_part, "p7");
	for (int i = 0; i < N; i++) {
		snprintf(name, sizeof(name), "p%d", i);
		assert_true(mdc_managed_has(m, name));
	}
	assert_false(mdc_managed_has(m, "p20000"));
	assert_false(mdc_managed_has(m, "p"));
	assert_int_equal(mdc_managed_check(m, "p1,p19999", NULL, &ctx), 0);
	assert_int_equal(mdc_managed_check(m, "p1,q", NULL, &ctx), MDC_ERR_NOTFOUND);
	mdc_managed_free(m);
	free(path);
}

/* mdc_managed_access with a fresh CTX (a message is kept, not replaced) */
static int access_of(const struct mdc_managed *m, const char *part,
		     const struct mdc_managed_job *job, uid_t slurm_uid, struct mdc_ctx *ctx)
{
	mdc_ctx_clear(ctx);
	return mdc_managed_access(m, part, job, slurm_uid, ctx);
}

/* mdc_managed_access: who may run in a (fallback) partition, as the file
 * declares it (issue 24 item 3) */
static void test_access(void **state)
{
	struct passwd *pw = getpwuid(65534);
	struct group *gr = pw ? getgrgid(pw->pw_gid) : NULL;
	char *text = NULL, *path;
	struct mdc_managed *m = NULL;
	struct mdc_ctx ctx = { 0 };
	struct mdc_managed_job nobody = { .uid = 65534, .gid = 65534 }, root = { 0 };

	(void) state;
	assert_true(asprintf(&text,
			     "PartitionName=DEFAULT DenyQos=bad\n"
			     "PartitionName=open Nodes=vm\n"
			     "PartitionName=down Nodes=vm State=DOWN\n"
			     "PartitionName=admins Nodes=vm AllowGroups=root\n"
			     "PartitionName=mine Nodes=vm AllowGroups=root,%s\n"
			     "PartitionName=acct Nodes=vm AllowAccounts=a,b\n"
			     "PartitionName=rootonly Nodes=vm RootOnly=YES\n"
			     "PartitionName=short Nodes=vm MaxTime=1:00:00\n",
			     gr ? gr->gr_name : "root") > 0);
	path = write_tmp("slurm.conf", text);
	assert_int_equal(mdc_managed_load(path, &m, &ctx), 0);
	assert_int_equal(access_of(m, "open", &nobody, 64030, &ctx), 0);
	assert_int_equal(access_of(m, "down", &root, 64030, &ctx), MDC_ERR_REFUSED);
	assert_string_equal(ctx.msg, "partition 'down' is State=DOWN: its jobs do not run");
	assert_int_equal(access_of(m, "admins", &nobody, 64030, &ctx), MDC_ERR_REFUSED);
	assert_string_equal(ctx.msg, "uid 65534 is in none of the AllowGroups=root of partition 'admins'");
	assert_int_equal(access_of(m, "admins", &root, 64030, &ctx), 0);
	/* SlurmUser passes AllowGroups, as in Slurm */
	assert_int_equal(access_of(m, "admins", &nobody, 65534, &ctx), 0);
	if (gr)
		assert_int_equal(access_of(m, "mine", &nobody, 64030, &ctx), 0);
	assert_int_equal(access_of(m, "rootonly", &nobody, 64030, &ctx), MDC_ERR_REFUSED);
	assert_int_equal(access_of(m, "rootonly", &root, 64030, &ctx), 0);
	/* accounts and QOS: only those the job names */
	assert_int_equal(access_of(m, "acct", &nobody, 64030, &ctx), 0);
	nobody.account = "c";
	assert_int_equal(access_of(m, "acct", &nobody, 64030, &ctx), MDC_ERR_REFUSED);
	assert_string_equal(ctx.msg, "account 'c' is not in the AllowAccounts=a,b of partition 'acct'");
	nobody.account = "b";
	assert_int_equal(access_of(m, "acct", &nobody, 64030, &ctx), 0);
	/* DenyQos from the DEFAULT line */
	nobody.qos = "bad";
	assert_int_equal(access_of(m, "open", &nobody, 64030, &ctx), MDC_ERR_REFUSED);
	assert_string_equal(ctx.msg, "QOS 'bad' is in the DenyQos=bad of partition 'open'");
	nobody.qos = "good";
	assert_int_equal(access_of(m, "acct", &nobody, 64030, &ctx), 0);
	assert_int_equal(access_of(m, "nosuch", &root, 64030, &ctx), MDC_ERR_NOTFOUND);
	/* MaxTime, in Slurm's format; a job without a time limit is not judged */
	root.time_limit = 61;
	assert_int_equal(access_of(m, "short", &root, 64030, &ctx), MDC_ERR_REFUSED);
	assert_string_equal(ctx.msg, "the job's time limit of 61 minutes is above the MaxTime=1:00:00 "
			    "of partition 'short'");
	root.time_limit = 60;
	assert_int_equal(access_of(m, "short", &root, 64030, &ctx), 0);
	assert_int_equal(access_of(m, "open", &root, 64030, &ctx), 0);
	mdc_managed_free(m);
	free(path);
	free(text);
}

/* mdc_managed_access_part: the same checks on a partition's settings as
 * the plugin has them from slurmctld's live record (issue 24 item 4):
 * NULL is "not set", MaxTime in minutes, no DEFAULT line behind it */
static void test_access_part(void **state)
{
	struct mdc_managed_part open = { .state = "UP" }, p;
	struct mdc_managed_job nobody = { .uid = 65534, .gid = 65534, .time_limit = 10 };
	struct mdc_ctx ctx;

	(void) state;
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_managed_access_part(&open, "o", &nobody, 64030, &ctx), 0);
	p = (struct mdc_managed_part) { .state = "DRAIN" };
	assert_int_equal(mdc_managed_access_part(&p, "d", &nobody, 64030, &ctx), MDC_ERR_REFUSED);
	assert_string_equal(ctx.msg, "partition 'd' is State=DRAIN: its jobs do not run");
	p = (struct mdc_managed_part) { .state = "UP", .max_time = "5" };
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_managed_access_part(&p, "s", &nobody, 64030, &ctx), MDC_ERR_REFUSED);
	assert_string_equal(ctx.msg, "the job's time limit of 10 minutes is above the MaxTime=5 of "
			    "partition 's'");
	p.max_time = "UNLIMITED";
	assert_int_equal(mdc_managed_access_part(&p, "s", &nobody, 64030, &ctx), 0);
	p = (struct mdc_managed_part) { .state = "UP", .allow_groups = "root" };
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_managed_access_part(&p, "g", &nobody, 64030, &ctx), MDC_ERR_REFUSED);
	assert_string_equal(ctx.msg, "uid 65534 is in none of the AllowGroups=root of partition 'g'");
	p = (struct mdc_managed_part) { .state = "UP", .deny_accounts = "x,y" };
	nobody.account = "y";
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_managed_access_part(&p, "a", &nobody, 64030, &ctx), MDC_ERR_REFUSED);
	assert_string_equal(ctx.msg, "account 'y' is in the DenyAccounts=x,y of partition 'a'");
}

static int setup(void **state)
{
	(void) state;
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	static const char *const files[] = { "slurm.conf", "parts.conf", "mdc.conf" };
	char *p;

	(void) state;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		if ((p = mdc_path_join(tmpdir, files[i]))) {
			unlink(p);
			free(p);
		}
	return rmdir(tmpdir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_load),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_load_errors),
		cmocka_unit_test(test_conf_get),
		cmocka_unit_test(test_hostile_files),
		cmocka_unit_test(test_include_tree_cap),
		cmocka_unit_test(test_many_partitions),
		cmocka_unit_test(test_access),
		cmocka_unit_test(test_access_part),
		cmocka_unit_test(test_corpus),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
