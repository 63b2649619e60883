/* test_sc_options.c - the Slurm option tables: lookup, suggestions, value
 * checks, flags, and completeness against the installed libslurmfull's own
 * key table.  (owner: slurm.conf engine) */
#include "config.h"
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <cmocka.h>
#include <slurm/slurm_version.h>
#include "sc_options.h"
#include "sc_release.h"

/* libslurmfull's table (parse_config.h, 22.05 and later): five words per
 * entry, NULL key at the end. */
struct slurm_sp_option {
	char *key;
	int type;
	void *handler;
	void *destroy;
	void *line_options;
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(24, 11, 0)
	void *pack;	/* 24.11's s_p_options_t: pack and unpack added */
	void *unpack;
#endif
};
extern struct slurm_sp_option slurm_conf_options[];
/* libslurmfull's own value readers (parse_value.c): the oracle */
extern int s_p_handle_uint16(uint16_t *data, const char *key, const char *value);
extern int s_p_handle_uint32(uint32_t *data, const char *key, const char *value);
extern int s_p_handle_uint64(uint64_t *data, const char *key, const char *value);
extern int s_p_handle_boolean(bool *data, const char *key, const char *value);

static void test_find(void **state)
{
	const struct sc_option *o;

	(void) state;
	o = sc_opt_find("priority_weight_age", SC_SCOPE_CLUSTER);
	assert_non_null(o);
	assert_string_equal(o->name, "PriorityWeightAge");
	assert_ptr_equal(sc_opt_find("PRIORITYWEIGHTAGE", SC_SCOPE_CLUSTER), o);
	assert_null(sc_opt_find("PriorityWeightAg", SC_SCOPE_CLUSTER));	/* no abbreviations */
	assert_null(sc_opt_find("MaxTime", SC_SCOPE_CLUSTER));
	o = sc_opt_find("maxtime", SC_SCOPE_PARTITION);
	assert_non_null(o);
	assert_int_equal(o->type, SC_T_TIME);
	assert_null(sc_opt_find("StorageHost", SC_SCOPE_CLUSTER));
	o = sc_opt_find("StorageHost", SC_SCOPE_DBD);
	assert_non_null(o);
	assert_true(o->flags & SC_OPT_REFUSED);
	assert_null(sc_opt_find(NULL, SC_SCOPE_CLUSTER));
	/* one name, two scopes, different flags */
	assert_true(sc_opt_find("SelectTypeParameters", SC_SCOPE_CLUSTER)->flags & SC_OPT_RESTART);
	assert_false(sc_opt_find("SelectTypeParameters", SC_SCOPE_PARTITION)->flags & SC_OPT_RESTART);
	assert_string_equal(sc_opt_find("state", SC_SCOPE_NODE)->name, "State");
}

static void test_flags(void **state)
{
	static const char *const restart[] = {
		"AuthType", "CredType", "SelectType", "SelectTypeParameters",
		"SchedulerType", "SwitchType", "BurstBufferType",
	};
	static const char *const refused[] = {
		"HealthCheckProgram", "HealthCheckInterval", "HealthCheckNodeState",
		"RequeueExit", "Prolog", "Epilog",
	};
	static const char *const managed[] = {
		"ClusterName", "SlurmctldHost", "SlurmUser", "SlurmctldPort",
		"SlurmdPort", "StateSaveLocation", "SlurmdSpoolDir", "SlurmctldLogFile",
		"SlurmctldPidFile", "AuthType", "CredType", "PluginDir",
	};
	const struct sc_option *o;
	size_t i;

	(void) state;
	for (i = 0; i < sizeof(restart) / sizeof(restart[0]); i++)
		assert_true(sc_opt_find(restart[i], SC_SCOPE_CLUSTER)->flags & SC_OPT_RESTART);
	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		assert_true(sc_opt_find(refused[i], SC_SCOPE_CLUSTER)->flags & SC_OPT_REFUSED);
	for (i = 0; i < sizeof(managed) / sizeof(managed[0]); i++)
		assert_true(sc_opt_find(managed[i], SC_SCOPE_CLUSTER)->flags & SC_OPT_MANAGED);
	assert_false(sc_opt_find("PriorityWeightQOS", SC_SCOPE_CLUSTER)->flags &
		     (SC_OPT_MANAGED | SC_OPT_REFUSED | SC_OPT_RESTART));
	o = sc_opt_find("Default", SC_SCOPE_PARTITION);
	assert_true(o->flags & SC_OPT_REFUSED);
	assert_non_null(strstr(o->why, "default_partition_id"));
	assert_non_null(strstr(sc_opt_find("Prolog", SC_SCOPE_CLUSTER)->why, "prolog_bash_scripts"));
	assert_true(sc_opt_find("ControlMachine", SC_SCOPE_CLUSTER)->flags & SC_OPT_OBSOLETE);
	assert_true(sc_opt_find("RealMemory", SC_SCOPE_NODE)->flags & SC_OPT_MANAGED);
	assert_false(sc_opt_find("Weight", SC_SCOPE_NODE)->flags & SC_OPT_MANAGED);
	assert_true(sc_opt_find("PartitionName", SC_SCOPE_CLUSTER)->flags & SC_OPT_RECORD);
}

/* Issue 16.1: the decision for each key of Slurm 22.05 that names a
 * program, script, plugin or file (src/common/read_config.c), pinned so a
 * table edit cannot drop one in silence.  REFUSED where the spec has
 * another way (the bash-script fields), MANAGED where the service owns it;
 * always EXEC, always with a reason. */
static void test_exec_flags(void **state)
{
	static const struct {
		const char *name;
		unsigned flag;
		const char *why;	/* a substring of the reason */
	} keys[] = {
		{ "Prolog", SC_OPT_REFUSED, "prolog_bash_scripts" },
		{ "Epilog", SC_OPT_REFUSED, "epilog_bash_scripts" },
		{ "PrologSlurmctld", SC_OPT_REFUSED, "prolog_bash_scripts" },
		{ "EpilogSlurmctld", SC_OPT_REFUSED, "epilog_bash_scripts" },
		{ "TaskProlog", SC_OPT_REFUSED, "prolog_bash_scripts" },
		{ "TaskEpilog", SC_OPT_REFUSED, "epilog_bash_scripts" },
		{ "SrunProlog", SC_OPT_REFUSED, "prolog_bash_scripts" },
		{ "SrunEpilog", SC_OPT_REFUSED, "epilog_bash_scripts" },
		{ "ResvProlog", SC_OPT_REFUSED, "as root" },
		{ "ResvEpilog", SC_OPT_REFUSED, "as root" },
		{ "UnkillableStepProgram", SC_OPT_REFUSED, "as root" },
		{ "HealthCheckProgram", SC_OPT_REFUSED, "as root" },
		{ "InteractiveStepOptions", SC_OPT_REFUSED, "salloc" },
		{ "SallocDefaultCommand", SC_OPT_REFUSED, "salloc" },
		{ "CertmgrParameters", SC_OPT_REFUSED, "scripts" },
		{ "JobSubmitPlugins", SC_OPT_MANAGED, "job_submit" },
		{ "JobCompLoc", SC_OPT_MANAGED, "jobcomp/script" },
		{ "Include", SC_OPT_MANAGED, "file" },
		{ "MailProg", SC_OPT_MANAGED, "" },
		{ "RebootProgram", SC_OPT_MANAGED, "" },
		{ "ResumeProgram", SC_OPT_MANAGED, "" },
		{ "ResumeFailProgram", SC_OPT_MANAGED, "" },
		{ "SuspendProgram", SC_OPT_MANAGED, "" },
		{ "SlurmctldPrimaryOnProg", SC_OPT_MANAGED, "" },
		{ "SlurmctldPrimaryOffProg", SC_OPT_MANAGED, "" },
		{ "PlugStackConfig", SC_OPT_MANAGED, "" },
		{ "PluginDir", SC_OPT_MANAGED, "" },
		{ "TLSParameters", SC_OPT_MANAGED, "" },
	};
	/* plugin selections stay settable: names cannot leave PluginDir */
	static const char *const plugins[] = {
		"SchedulerType", "SelectType", "TaskPlugin", "PriorityType", "PreemptType",
		"ProctrackType", "JobCompType", "CliFilterPlugins", "PrologEpilogTimeout",
	};
	const struct sc_option *o;

	(void) state;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		o = sc_opt_find(keys[i].name, SC_SCOPE_CLUSTER);
		assert_non_null(o);
		if (!(o->flags & SC_OPT_EXEC) || !(o->flags & keys[i].flag) || !o->why ||
		    !strstr(o->why, keys[i].why))
			fail_msg("%s: flags %#x, why '%s'", o->name, o->flags, o->why ? o->why : "");
	}
	for (size_t i = 0; i < sizeof(plugins) / sizeof(plugins[0]); i++) {
		o = sc_opt_find(plugins[i], SC_SCOPE_CLUSTER);
		assert_non_null(o);
		assert_false(o->flags & (SC_OPT_EXEC | SC_OPT_REFUSED | SC_OPT_MANAGED));
	}
	/* RequeueExitHold: refused like RequeueExit (one table, one answer) */
	assert_true(sc_opt_find("RequeueExitHold", SC_SCOPE_CLUSTER)->flags & SC_OPT_REFUSED);
}

/* Every flagged entry says why; no two entries share a name and a scope. */
static void test_table_sane(void **state)
{
	const struct sc_option *a, *b;
	size_t i, j;

	(void) state;
	for (i = 0; (a = sc_opt_at(i)); i++) {
		assert_non_null(a->name);
		if (a->flags & (SC_OPT_MANAGED | SC_OPT_REFUSED | SC_OPT_OBSOLETE))
			assert_non_null(a->why);
		if (a->type == SC_T_ENUM)
			assert_non_null(a->values);
		for (j = i + 1; (b = sc_opt_at(j)); j++)
			if (!strcasecmp(a->name, b->name) && (a->scope & b->scope)) {
				print_error("duplicate entry %s\n", a->name);
				fail();
			}
	}
	assert_true(i > 300);
}

static void test_suggest(void **state)
{
	(void) state;
	assert_string_equal(sc_opt_suggest("PriorityWeightAg", SC_SCOPE_CLUSTER), "PriorityWeightAge");
	assert_string_equal(sc_opt_suggest("SchedulerParamters", SC_SCOPE_CLUSTER), "SchedulerParameters");
	assert_string_equal(sc_opt_suggest("Mxtime", SC_SCOPE_PARTITION), "MaxTime");
	assert_string_equal(sc_opt_suggest("preempt_tpye", SC_SCOPE_CLUSTER), "PreemptType");
	assert_null(sc_opt_suggest("Zzzqqqxxx", SC_SCOPE_CLUSTER));
	assert_null(sc_opt_suggest(NULL, SC_SCOPE_CLUSTER));
}

static void test_check_value(void **state)
{
	static const struct {
		const char *key;
		unsigned scope;
		const char *value;
		bool ok;
	} cases[] = {
		{ "MaxTime", SC_SCOPE_PARTITION, "abc", false },
		{ "MaxTime", SC_SCOPE_PARTITION, "2-00:00:00", true },
		{ "MaxTime", SC_SCOPE_PARTITION, "120", true },
		{ "MaxTime", SC_SCOPE_PARTITION, "1:30", true },
		{ "MaxTime", SC_SCOPE_PARTITION, "UNLIMITED", true },
		{ "MaxTime", SC_SCOPE_PARTITION, "1-2-3", false },
		{ "MaxTime", SC_SCOPE_PARTITION, "1:2:3:4", false },
		/* Slurm's time_str2mins: -1 is INFINITE, other negatives are not */
		{ "MaxTime", SC_SCOPE_PARTITION, "-1", true },
		{ "DefaultTime", SC_SCOPE_PARTITION, "-1", true },
		{ "MaxTime", SC_SCOPE_PARTITION, "-5", false },
		{ "MaxTime", SC_SCOPE_PARTITION, "infinite", true },
		{ "MaxTime", SC_SCOPE_PARTITION, "1-", true },	/* one day, as scontrol reads it */
		{ "MaxTime", SC_SCOPE_PARTITION, "1-:5", false },
		{ "PriorityTier", SC_SCOPE_PARTITION, "70000", false },
		{ "PriorityTier", SC_SCOPE_PARTITION, "65535", true },
		{ "PriorityTier", SC_SCOPE_PARTITION, "-1", false },
		{ "PriorityWeightAge", SC_SCOPE_CLUSTER, "4294967296", false },
		{ "PriorityWeightAge", SC_SCOPE_CLUSTER, "1000", true },
		{ "Hidden", SC_SCOPE_PARTITION, "maybe", false },
		{ "Hidden", SC_SCOPE_PARTITION, "yes", true },
		{ "PreemptType", SC_SCOPE_CLUSTER, "preempt/foo", false },
		{ "PreemptType", SC_SCOPE_CLUSTER, "PREEMPT/QOS", true },
		{ "SchedulerParameters", SC_SCOPE_CLUSTER, "a\nPrologFlags=x", false },
		{ "SchedulerParameters", SC_SCOPE_CLUSTER, "bf_max_job_test=100", true },
		{ "DefMemPerCPU", SC_SCOPE_CLUSTER, "4G", true },
		{ "DefMemPerCPU", SC_SCOPE_CLUSTER, "4X", false },
		{ "State", SC_SCOPE_PARTITION, "down", true },
		{ "State", SC_SCOPE_PARTITION, "sideways", false },
	};
	char why[128];
	size_t i;

	(void) state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct sc_option *o = sc_opt_find(cases[i].key, cases[i].scope);
		bool got;

		assert_non_null(o);
		why[0] = '\0';
		got = sc_opt_check_value(o, cases[i].value, why, sizeof(why));
		if (got != cases[i].ok) {
			print_error("%s=%s: expected %s\n", cases[i].key, cases[i].value,
				    cases[i].ok ? "ok" : "refused");
			fail();
		}
		if (!got)
			assert_true(strlen(why) > 5);
	}
	sc_opt_check_value(sc_opt_find("MaxTime", SC_SCOPE_PARTITION), "abc", why, sizeof(why));
	assert_non_null(strstr(why, "time"));
}

/* sc_value_uint and sc_value_bool read what the installed Slurm's
 * parser reads, value for value (its error lines go to stderr). */
static void test_value_readers_oracle(void **state)
{
	static const char *const values[] = {
		"0", "10", "010", "0x10", "4k", "4K", "65535", "65536", "70000", "-1", "",
		"4294967295", "4294967296", "4194304k", "12x", "UNLIMITED", "infinite",
		" 5", "5 ", "+5", "k", "18446744073709551615", "18446744073709551616",
	};
	static const char *const words[] = {
		"yes", "YES", "no", "up", "Down", "true", "FALSE", "1", "0", "on", "off", "y", "n", "",
	};

	(void) state;
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		const char *v = values[i];
		unsigned long long n;
		uint16_t u16;
		uint32_t u32;
		uint64_t u64;

		print_message("'%s'\n", v);
		assert_int_equal(s_p_handle_uint16(&u16, "K", v) == 0,
				 sc_value_uint(v, SC_T_UINT16, &n) == NULL);
		if (s_p_handle_uint16(&u16, "K", v) == 0)
			assert_int_equal(u16, n);
		assert_int_equal(s_p_handle_uint32(&u32, "K", v) == 0,
				 sc_value_uint(v, SC_T_UINT32, &n) == NULL);
		if (s_p_handle_uint32(&u32, "K", v) == 0)
			assert_int_equal(u32, n);
		assert_int_equal(s_p_handle_uint64(&u64, "K", v) == 0,
				 sc_value_uint(v, SC_T_UINT64, &n) == NULL);
		if (s_p_handle_uint64(&u64, "K", v) == 0)
			assert_true(u64 == n);
	}
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		bool b = false;
		int rc = s_p_handle_boolean(&b, "K", words[i]);

		print_message("'%s'\n", words[i]);
		assert_int_equal(sc_value_bool(words[i]), rc ? -1 : b);
	}
}

/* The installed Slurm's own list: every key it knows must be in ours. */
static void test_against_libslurmfull(void **state)
{
	const struct slurm_sp_option *o;
	size_t n = 0, missing = 0;

	(void) state;
	if (SLURM_VERSION_NUMBER < 0x160500) {
		print_message("# skip: s_p_options_t layout checked for Slurm >= 22.05 only\n");
		skip();
	}
	for (o = slurm_conf_options; o->key; o++, n++) {
		const struct sc_option *ours = sc_opt_find(o->key, SC_SCOPE_CLUSTER);

		if (!ours || strcasecmp(ours->name, o->key)) {
			print_error("key of the installed Slurm missing from sc_options: %s\n", o->key);
			missing++;
		}
	}
	print_message("# %zu keys in the installed slurm_conf_options\n", n);
	assert_true(n > 150);
	assert_int_equal(missing, 0);
}

/* The table generated from 22.05's source (sc_release_tab.c) and the
 * installed 22.05 libslurmfull name the same cluster keys: the generator
 * reads read_config.c as the library was built from it. */
static void test_release_tab_against_libslurmfull(void **state)
{
	struct slurm_sp_option *o;
	size_t n = 0, gen = 0, bad = 0;
	/* the installed Slurm's release (each root's, scripts/release-root) */
	int rel = sc_rel_build();
	char want[16];

	(void) state;
	snprintf(want, sizeof(want), "%d.%02d", SLURM_VERSION_NUMBER >> 16, (SLURM_VERSION_NUMBER >> 8) & 255);
	if (strcmp(sc_rel_name(rel), want)) {
		print_message("# skip: the installed Slurm %s has no column in sc_release_tab.c\n", want);
		skip();
	}
	for (o = slurm_conf_options; o->key; o++, n++) {
		const struct sc_rel_key *k = sc_rel_key_find(o->key, SC_SCOPE_CLUSTER);

		if (!k || k->state[rel] == SC_REL_ABSENT) {
			print_error("%s key missing from sc_release_tab.c: %s\n", want, o->key);
			bad++;
		}
	}
	for (size_t i = 0; i < sc_rel_nkeys; i++)
		if (sc_rel_keys[i].scope == SC_SCOPE_CLUSTER && sc_rel_keys[i].state[rel] != SC_REL_ABSENT)
			gen++;
	if (gen != n)
		print_error("sc_release_tab.c has %zu %s cluster keys, libslurmfull %zu\n", gen, want, n);
	assert_int_equal(bad, 0);
	assert_int_equal(gen, n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_flags),
		cmocka_unit_test(test_exec_flags),
		cmocka_unit_test(test_table_sane),
		cmocka_unit_test(test_suggest),
		cmocka_unit_test(test_check_value),
		cmocka_unit_test(test_value_readers_oracle),
		cmocka_unit_test(test_against_libslurmfull),
		cmocka_unit_test(test_release_tab_against_libslurmfull),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
