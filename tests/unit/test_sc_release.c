/* test_sc_release.c - the per-release tables generated from each Slurm
 * release's source (sc_release_tab.c) and the judgement against the
 * release the cluster runs (sc_release.h, mdc_value_check).
 * (owner: slurm.conf engine) */
#include "config.h"
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "mdc_value.h"
#include "sc_options.h"
#include "sc_release.h"

enum { R22 = 0, R24 = 1, R26 = 2 };

static void test_parse(void **state)
{
	(void) state;
	assert_int_equal(sc_rel_parse("22.05"), R22);
	assert_int_equal(sc_rel_parse("24.11.5"), R24);
	assert_int_equal(sc_rel_parse("slurm 26.05.3"), R26);
	assert_int_equal(sc_rel_parse("23.11"), -1);
	assert_int_equal(sc_rel_parse("24.1"), -1);
	assert_int_equal(sc_rel_parse("24"), -1);
	assert_int_equal(sc_rel_parse(""), -1);
	assert_string_equal(sc_rel_name(R24), "24.11");
	assert_string_equal(sc_rel_name(7), "?");
}

/* What the sources say (issue 29's list), as the generator read it. */
static void test_table(void **state)
{
	static const struct { const char *key; unsigned char st[SC_NREL]; } want[] = {
		{ "TLSType", { SC_REL_ABSENT, SC_REL_KEY, SC_REL_KEY } },
		{ "CertmgrType", { SC_REL_ABSENT, SC_REL_KEY, SC_REL_KEY } },
		{ "HashPlugin", { SC_REL_ABSENT, SC_REL_KEY, SC_REL_KEY } },
		{ "DataParserParameters", { SC_REL_ABSENT, SC_REL_KEY, SC_REL_KEY } },
		{ "MaxBatchRequeue", { SC_REL_ABSENT, SC_REL_KEY, SC_REL_KEY } },
		{ "SuspendExcStates", { SC_REL_ABSENT, SC_REL_KEY, SC_REL_KEY } },
		{ "CoreSpecPlugin", { SC_REL_KEY, SC_REL_DEFUNCT, SC_REL_DEFUNCT } },
		{ "PowerPlugin", { SC_REL_KEY, SC_REL_DEFUNCT, SC_REL_DEFUNCT } },
		{ "SlurmctldPlugstack", { SC_REL_KEY, SC_REL_ABSENT, SC_REL_ABSENT } },
		{ "SchedulerAuth", { SC_REL_DEFUNCT, SC_REL_ABSENT, SC_REL_ABSENT } },
		/* still read in every release: not "removed" (issue 24 item 7) */
		{ "CryptoType", { SC_REL_KEY, SC_REL_KEY, SC_REL_KEY } },
		{ "SelectType", { SC_REL_KEY, SC_REL_KEY, SC_REL_KEY } },
	};
	const struct sc_rel_key *k;

	(void) state;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		k = sc_rel_key_find(want[i].key, SC_SCOPE_CLUSTER);
		assert_non_null(k);
		for (int r = 0; r < SC_NREL; r++)
			if (k->state[r] != want[i].st[r])
				fail_msg("%s in %s: state %d, want %d", want[i].key, sc_rel_name(r),
					 k->state[r], want[i].st[r]);
	}
	k = sc_rel_key_find("AccountingStoragePort", SC_SCOPE_CLUSTER);
	assert_non_null(k);
	assert_string_equal(k->sptype[R22], "UINT16");
	/* record keys keep their record's scope */
	assert_non_null(sc_rel_key_find("PowerDownOnIdle", SC_SCOPE_PARTITION));
	assert_null(sc_rel_key_find("PowerDownOnIdle", SC_SCOPE_CLUSTER));
	assert_null(sc_rel_key_find("NoSuchKeyAnywhere", ~0u));
}

/* Every key some release reads has a row in sc_options.c (its managed,
 * exec and scope flags live there): a new release's key cannot slip past
 * the service's rules unflagged. */
static void test_options_cover_releases(void **state)
{
	size_t missing = 0;

	(void) state;
	for (size_t i = 0; i < sc_rel_nkeys; i++) {
		const struct sc_rel_key *k = &sc_rel_keys[i];

		if (!sc_opt_find(k->name, k->scope)) {
			print_error("%s (scope %#x) read by Slurm but not in sc_options.c\n",
				    k->name, k->scope);
			missing++;
		}
	}
	assert_int_equal(missing, 0);
}

/* sc_options.c's hand-written number and boolean types agree with the
 * s_p type each release's read_config.c gives the key: a value we take
 * is one Slurm's parser takes. */
static void test_types_match_source(void **state)
{
	static const struct { enum sc_type t; const char *sp; } same[] = {
		{ SC_T_UINT16, "UINT16" }, { SC_T_UINT32, "UINT32" }, { SC_T_UINT64, "UINT64" },
		{ SC_T_BOOL, "BOOLEAN" },
	};
	size_t bad = 0;

	(void) state;
	for (size_t i = 0; i < sc_rel_nkeys; i++) {
		const struct sc_rel_key *k = &sc_rel_keys[i];
		const struct sc_option *o = sc_opt_find(k->name, k->scope);

		/* _parse_partitionname reads it as text: INFINITE, UNLIMITED or
		 * a number, which is what our UINT16 check takes */
		if (k->scope == SC_SCOPE_PARTITION && !strcmp(k->name, "OverTimeLimit"))
			continue;
		for (size_t j = 0; o && j < sizeof(same) / sizeof(same[0]); j++) {
			if (o->type != same[j].t)
				continue;
			for (int r = 0; r < SC_NREL; r++)
				if (k->sptype[r] && strcmp(k->sptype[r], same[j].sp)) {
					print_error("%s (scope %#x): sc_options says %s, %s's source S_P_%s\n",
						    k->name, k->scope, same[j].sp, sc_rel_name(r), k->sptype[r]);
					bad++;
				}
		}
	}
	assert_int_equal(bad, 0);
}

static void test_check_key(void **state)
{
	char why[512];

	(void) state;
	assert_int_equal(sc_rel_check_key("TLSType", ~0u, R24, why, sizeof(why)), 0);
	assert_int_equal(sc_rel_check_key("TLSType", ~0u, R22, why, sizeof(why)), 2);
	assert_non_null(strstr(why, "not a key of Slurm 22.05, the release judged against"));
	assert_non_null(strstr(why, "Slurm 24.11 and 26.05 have it"));
	/* gone after 22.05 */
	assert_int_equal(sc_rel_check_key("SlurmctldPlugstack", ~0u, R24, why, sizeof(why)), 2);
	assert_non_null(strstr(why, "not a key of Slurm 24.11"));
	assert_non_null(strstr(why, "Slurm 22.05 has it"));
	assert_int_equal(sc_rel_check_key("SlurmctldPlugstack", ~0u, R22, why, sizeof(why)), 0);
	/* read and ignored */
	assert_int_equal(sc_rel_check_key("CoreSpecPlugin", ~0u, R24, why, sizeof(why)), 2);
	assert_non_null(strstr(why, "defunct in Slurm 24.11"));
	assert_int_equal(sc_rel_check_key("coresPECplugin", ~0u, R22, why, sizeof(why)), 0);
	/* CryptoType is read by all three */
	for (int r = 0; r < SC_NREL; r++)
		assert_int_equal(sc_rel_check_key("CryptoType", ~0u, r, why, sizeof(why)), 0);
	/* a key no release has is the option table's business */
	assert_int_equal(sc_rel_check_key("NoSuchKey", ~0u, R22, why, sizeof(why)), 0);
	/* a partition key */
	assert_int_equal(sc_rel_check_key("PowerDownOnIdle", SC_SCOPE_PARTITION, R22, why,
					  sizeof(why)), 2);
	assert_int_equal(sc_rel_check_key("PowerDownOnIdle", SC_SCOPE_PARTITION, R24, why,
					  sizeof(why)), 0);
}

static void test_words(void **state)
{
	const struct sc_rel_words *w = sc_rel_words_find("scheduler_parameters");

	(void) state;
	assert_non_null(w);
	assert_false(w->exact);
	assert_true(sc_rel_word_known(w, R22, "bf_continue", 11));
	assert_true(sc_rel_word_known(w, R22, "bf_window=1440", 14));
	assert_false(sc_rel_word_known(w, R22, "bf_contine", 10));
	w = sc_rel_words_find("SelectTypeParameters");
	assert_non_null(w);
	assert_true(w->exact);
	assert_true(sc_rel_word_known(w, R22, "cr_core_memory", 14));
	assert_false(sc_rel_word_known(w, R22, "CR_Cores", 8));	/* exact: no prefix */
	w = sc_rel_words_find("TaskPluginParam");
	assert_true(sc_rel_word_known(w, R24, "autobind=cores", 14));
	/* every list-valued key of issue 24 item 6 has words in every release */
	static const char *const keys[] = {
		"SchedulerParameters", "PriorityFlags", "SlurmctldParameters", "SlurmdParameters",
		"CommunicationParameters", "AccountingStorageEnforce", "PrologFlags", "DebugFlags",
		"LaunchParameters", "SelectTypeParameters", "TaskPluginParam", "PreemptMode",
		"PrivateData", "ReconfigFlags", "JobAcctGatherParams", "X11Parameters",
		"AccountingStoreFlags",
	};
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		w = sc_rel_words_find(keys[i]);
		if (!w)
			fail_msg("no word list for %s", keys[i]);
		for (int r = 0; r < SC_NREL; r++)
			if (!*w->words[r])
				fail_msg("%s has no words in %s", keys[i], sc_rel_name(r));
	}
}

static void test_check_plugins(void **state)
{
	char why[512];

	(void) state;
	assert_int_equal(sc_rel_check_plugins("SelectType", "select/cons_res", R22, why,
					      sizeof(why)), 0);
	assert_int_equal(sc_rel_check_plugins("SelectType", "select/cons_res", R24, why,
					      sizeof(why)), 2);
	assert_non_null(strstr(why, "Slurm 24.11, the release judged against, ships no "
			       "select/cons_res plugin"));
	assert_non_null(strstr(why, "Slurm 23.11 replaced it with select/cons_tres"));
	assert_int_equal(sc_rel_check_plugins("SelectType", "select/cons_tres", R26, why,
					      sizeof(why)), 0);
	/* lists, blanks, case of the key */
	assert_int_equal(sc_rel_check_plugins("taskplugin", "task/affinity, task/cray_aries", R24,
					      why, sizeof(why)), 2);
	assert_non_null(strstr(why, "task/cray_aries"));
	assert_int_equal(sc_rel_check_plugins("TaskPlugin", "task/affinity,task/cgroup", R24, why,
					      sizeof(why)), 0);
	/* TYPE/none and bare names are not judged here */
	assert_int_equal(sc_rel_check_plugins("PreemptType", "preempt/none", R24, why,
					      sizeof(why)), 0);
	assert_int_equal(sc_rel_check_plugins("SelectType", "cons_tres", R24, why,
					      sizeof(why)), 0);
	/* a plugin no release ships: the target's own list, never another's */
	assert_int_equal(sc_rel_check_plugins("SelectType", "select/bogus", R24, why,
					      sizeof(why)), 2);
	assert_non_null(strstr(why, "its select plugins: select/cons_tres, select/linear"));
	assert_null(strstr(why, "cons_res"));
	assert_int_equal(sc_rel_check_plugins("MCSPlugin", "mcs/bogus", R26, why, sizeof(why)), 2);
	assert_non_null(strstr(why, "Slurm 26.05, the release judged against, ships no mcs/bogus"));
	assert_int_equal(sc_rel_check_plugins("SchedulerType", "sched/backfil", R22, why,
					      sizeof(why)), 2);
	assert_non_null(strstr(why, "did you mean sched/backfill?"));
	assert_string_equal(sc_rel_plugin_suggest("select", "cons_re", 7, R24), "select/cons_tres");
	assert_null(sc_rel_plugin_suggest("select", "zzzzzzzz", 8, R24));
	/* 22.05 rereads in place (SchedulerType waits for a restart); 24.11
	 * and 26.05 exec slurmctld anew on a reconfigure */
	assert_false(sc_rel_reconfig_restarts(R22));
	assert_true(sc_rel_reconfig_restarts(R24));
	assert_true(sc_rel_reconfig_restarts(R26));
	assert_false(sc_rel_reconfig_restarts(-1));
	assert_int_equal(sc_rel_check_plugins("ClusterName", "select/cons_res", R24, why,
					      sizeof(why)), 0);
}

/* The target release: default the build's, then what was set; the value
 * check judges against it. */
static void test_target_and_value_check(void **state)
{
	char why[512], buf[160];

	(void) state;
	assert_int_equal(sc_rel_target(), sc_rel_build());
	assert_int_equal(sc_rel_target_from(), SC_REL_FROM_BUILD);
	sc_rel_set_target(R24, SC_REL_FROM_CONF);
	assert_string_equal(sc_rel_describe(buf, sizeof(buf)),
			    "Slurm 24.11 (SlurmRelease in mdc.conf)");
	assert_int_equal(mdc_value_check("SelectType", "select/cons_res", why, sizeof(why)), 2);
	assert_non_null(strstr(why, "24.11"));
	assert_int_equal(mdc_value_check("TLSType", "tls/none", why, sizeof(why)), 0);
	sc_rel_set_target(R22, SC_REL_FROM_CONF);
	assert_int_equal(mdc_value_check("SelectType", "select/cons_res", why, sizeof(why)), 0);
	assert_int_equal(mdc_value_check("TLSType", "tls/none", why, sizeof(why)), 2);
	assert_non_null(strstr(why, "Slurm 24.11 and 26.05 have it"));
	/* each release's own words: RunInJob came with 24.11 (PrologFlags
	 * refuses what it does not know), enable_stepmgr too (ignored) */
	assert_int_equal(mdc_value_check("PrologFlags", "Contain,RunInJob", why, sizeof(why)), 2);
	assert_non_null(strstr(why, "unknown word 'RunInJob'"));
	assert_non_null(strstr(why, "judged against Slurm 22.05"));
	assert_int_equal(mdc_value_check("SlurmctldParameters", "enable_stepmgr", why, sizeof(why)), 1);
	sc_rel_set_target(R24, SC_REL_FROM_CONF);
	assert_int_equal(mdc_value_check("PrologFlags", "Contain,RunInJob", why, sizeof(why)), 0);
	assert_int_equal(mdc_value_check("SlurmctldParameters", "enable_stepmgr", why, sizeof(why)), 0);
	assert_int_equal(mdc_value_check("SlurmctldParameters", "enable_stepmrg", why, sizeof(why)), 1);
	assert_non_null(strstr(why, "did you mean 'enable_stepmgr'"));
	assert_non_null(strstr(why, "judged against Slurm 24.11"));
	sc_rel_set_target(R22, SC_REL_FROM_CONF);
	/* issue 24 item 6: a typo in a word list gets a did-you-mean */
	assert_int_equal(mdc_value_check("SchedulerParameters", "bf_contine,defer", why,
					 sizeof(why)), 1);
	assert_non_null(strstr(why, "did you mean 'bf_continue'"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_options_cover_releases),
		cmocka_unit_test(test_types_match_source),
		cmocka_unit_test(test_check_key),
		cmocka_unit_test(test_words),
		cmocka_unit_test(test_check_plugins),
		cmocka_unit_test(test_target_and_value_check),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
