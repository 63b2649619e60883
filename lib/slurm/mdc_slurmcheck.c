/* mdc_slurmcheck.c - see mdc_slurmcheck.h.  (owner: verdict)
 *
 * Slurm's parser runs in a program of its own (tools/mdc-slurmcheck, run
 * through mdc_run): it keeps global state, calls exit() on fatal errors
 * and waits up to 60 s for a missing Include, none of which may touch the
 * caller, and the caller may be threaded (mdcd), where a forked copy that
 * loads a library can hang.  The helper only dlopen()s libslurmfull and
 * calls it; we read what Slurm logs (to stderr, before any log_init) and
 * kill it when the time is up.
 */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include "mdc_log.h"
#include "mdc_plan.h"
#include "mdc_run.h"
#include "mdc_slurmcheck.h"
#include "mdc_value.h"
#include "sc_conf.h"
#include "sc_release.h"
#include "sc_render.h"

#ifndef MDC_PKGLIBEXECDIR
#define MDC_PKGLIBEXECDIR "/usr/local/libexec/slurm-mdc"
#endif
#ifndef MDC_SLURM_PLUGINDIR
#define MDC_SLURM_PLUGINDIR "/usr/lib/x86_64-linux-gnu/slurm-wlm"
#endif

/* ---- where libslurmfull is ---------------------------------------------- */

const char *mdc_slurmcheck_library(char *buf, size_t bufsz)
{
	static const char *const dirs[] = {
		MDC_SLURM_PLUGINDIR, "/usr/lib/x86_64-linux-gnu/slurm-wlm",
		"/usr/lib/aarch64-linux-gnu/slurm-wlm", "/usr/lib64/slurm", "/usr/lib/slurm",
		"/usr/local/lib/slurm",
	};
	const char *env = getenv("MDC_LIBSLURMFULL");
	int n;

	if (!buf || !bufsz)
		return NULL;
	/* set (even empty): that library or none, for tests and odd installs */
	if (env) {
		n = snprintf(buf, bufsz, "%s", env);
		return *env && (size_t) n < bufsz && !access(buf, R_OK) ? buf : NULL;
	}
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		n = snprintf(buf, bufsz, "%s/libslurmfull.so", dirs[i]);
		if ((size_t) n < bufsz && !access(buf, R_OK))
			return buf;
	}
	return NULL;
}

/* ---- our checks ----------------------------------------------------------- */

static const char *get(const struct sc_conf *c, const char *key)
{
	return sc_conf_get(c, key);
}

static bool has_word(const char *list, const char *word)
{
	struct mdc_strv v = MDC_STRV_INIT;
	bool found = false;

	if (!list || mdc_strv_split(&v, list, ","))
		return false;
	for (size_t i = 0; i < v.n && !found; i++)
		found = !strcasecmp(mdc_trim(v.v[i]), word);
	mdc_strv_free(&v);
	return found;
}

/* PreemptMode's mode word (OFF, CANCEL, REQUEUE, SUSPEND) and how many
 * there are; GANG/WITHIN reported apart. */
static const char *preempt_mode_word(const char *mode, int *nmodes, bool *gang, bool *within)
{
	static const struct { const char *w, *mode; } words[] = {
		{ "off", "OFF" }, { "cluster", "OFF" }, { "cancel", "CANCEL" },
		{ "requeue", "REQUEUE" }, { "suspend", "SUSPEND" }, { "on", "SUSPEND" },
	};
	const char *m = "OFF";

	*nmodes = 0;
	*gang = has_word(mode, "gang");
	*within = has_word(mode, "within");
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (has_word(mode, words[i].w)) {
			m = words[i].mode;
			(*nmodes)++;
		}
	return m;
}

/* read_config.c _validate_and_set_defaults: PreemptMode with PreemptType. */
static int rule_preempt(const struct sc_conf *c, struct mdc_strv *err)
{
	const char *mode = get(c, "PreemptMode"), *type = get(c, "PreemptType");
	const char *m;
	int n;
	bool gang, within;

	if (!mode)
		mode = "OFF";
	if (!type)
		type = "preempt/none";
	m = preempt_mode_word(mode, &n, &gang, &within);
	if (n > 1)
		return mdc_strv_pushf(err, "PreemptMode='%s': give one mode of OFF, CANCEL, REQUEUE "
				      "or SUSPEND (optionally with GANG or WITHIN)", mode);
	if (gang && within)
		return mdc_strv_pushf(err, "PreemptMode='%s': GANG and WITHIN cannot be combined",
				      mode);
	if (!strcmp(m, "SUSPEND") && !gang)
		return mdc_strv_pushf(err, "PreemptMode='%s': SUSPEND requires GANG too: write "
				      "PreemptMode=SUSPEND,GANG", mode);
	if (!strcmp(type, "preempt/none") && strcmp(m, "OFF"))
		return mdc_strv_pushf(err, "PreemptMode='%s' needs a PreemptType: set "
				      "PreemptType=preempt/partition_prio (or preempt/qos) in the "
				      "same change, or PreemptMode=OFF", mode);
	if ((!strcmp(type, "preempt/partition_prio") || !strcmp(type, "preempt/qos")) &&
	    !strcmp(m, "OFF"))
		return mdc_strv_pushf(err, "PreemptType=%s needs a PreemptMode other than OFF: set "
				      "PreemptMode=REQUEUE, CANCEL or SUSPEND,GANG (or "
				      "PreemptType=preempt/none)", type);
	return 0;
}

/* slurm_selecttype_info.c parse_select_type_param and read_config.c. */
static int rule_select(const struct sc_conf *c, struct mdc_strv *err)
{
	static const char *const base[] = {
		"CR_Socket", "CR_Socket_Memory", "CR_Core", "CR_Core_Memory", "CR_Memory",
		"CR_CPU", "CR_CPU_Memory",
	};
	const char *p = get(c, "SelectTypeParameters"), *type = get(c, "SelectType");
	const char *max = get(c, "MaxNodeCount");
	int nbase = 0;

	for (size_t i = 0; p && i < sizeof(base) / sizeof(base[0]); i++)
		nbase += has_word(p, base[i]);
	if (nbase > 1)
		return mdc_strv_pushf(err, "SelectTypeParameters='%s': give only one of CR_CPU, "
				      "CR_Core, CR_Socket, CR_Memory (or their _Memory forms)", p);
	if (p && (has_word(p, "CR_CPU") || has_word(p, "CR_CPU_Memory")) &&
	    has_word(p, "CR_ONE_TASK_PER_CORE"))
		return mdc_strv_pushf(err, "SelectTypeParameters='%s': CR_ONE_TASK_PER_CORE is not "
				      "compatible with CR_CPU*: use CR_Core or CR_Core_Memory", p);
	/* 22.05's default SelectType is select/linear */
	if (max && strcmp(max, "0") && (!type || !strstr(type, "cons_tres")))
		return mdc_strv_pushf(err, "MaxNodeCount=%s needs SelectType=select/cons_tres", max);
	return 0;
}

/* read_config.c: PrologFlags combinations that are fatal. */
static int rule_prolog(const struct sc_conf *c, struct mdc_strv *err)
{
	const char *f = get(c, "PrologFlags"), *pt = get(c, "ProctrackType");
	const char *jc = get(c, "JobContainerType");

	if (f && has_word(f, "NoHold") && (has_word(f, "Contain") || has_word(f, "X11")))
		return mdc_strv_pushf(err, "PrologFlags='%s': NoHold cannot be combined with Contain "
				      "or X11", f);
	if (f && has_word(f, "X11") && pt && !strcmp(pt, "proctrack/linuxproc"))
		return mdc_strv_pushf(err, "PrologFlags=X11 cannot be combined with "
				      "ProctrackType=proctrack/linuxproc");
	if (jc && !strcmp(jc, "job_container/tmpfs") && !(f && has_word(f, "Contain")))
		return mdc_strv_pushf(err, "JobContainerType=job_container/tmpfs needs "
				      "PrologFlags=Contain");
	return 0;
}

/* slurmctld only (controller.c, licenses.c): the client parser takes any
 * Licenses text, slurmctld stops on a malformed one. */
static int rule_lists(const struct sc_conf *c, struct mdc_strv *err)
{
	const char *lic = get(c, "Licenses");
	struct mdc_strv v = MDC_STRV_INIT;
	int rc = 0;

	if (!lic)
		return 0;
	if (mdc_strv_split(&v, lic, ","))
		return MDC_ERR_NOMEM;
	for (size_t i = 0; !rc && i < v.n; i++) {
		char *item = v.v[i], *sep = strpbrk(item, ":*"), *end;

		if (!*item || (sep && (sep == item || strtol(sep + 1, &end, 10) < 0 || *end ||
				       end == sep + 1)))
			rc = mdc_strv_pushf(err, "Licenses='%s': '%s' is not NAME or NAME:COUNT "
					    "(slurmctld would stop)", lic, item);
	}
	mdc_strv_free(&v);
	return rc;
}

/* SchedulerParameters: read_config.c stops on max_script_size over
 * 512 MB; sched/backfill logs and ignores a number it cannot read, so a
 * malformed one is a warning (WARN). */
static int rule_sched(const struct sc_conf *c, struct mdc_strv *err, struct mdc_strv *warn)
{
	static const char *const numeric[] = {
		"bf_interval", "bf_max_job_test", "bf_max_job_start", "bf_max_job_user",
		"bf_max_job_part", "bf_max_job_array_resv", "bf_resolution", "bf_window",
		"bf_yield_interval", "bf_yield_sleep", "bf_max_time", "bf_min_age_reserve",
		"bf_min_prio_reserve", "default_queue_depth", "max_rpc_cnt", "max_sched_time",
		"max_switch_wait", "partition_job_depth", "sched_interval", "sched_min_interval",
		"max_array_tasks", "max_depend_depth", "max_script_size", "bf_node_space_size",
	};
	const char *p = get(c, "SchedulerParameters");
	struct mdc_strv v = MDC_STRV_INIT;
	int rc = 0;

	if (!p)
		return 0;
	if (mdc_strv_split(&v, p, ","))
		return MDC_ERR_NOMEM;
	for (size_t i = 0; !rc && i < v.n; i++) {
		char *item = mdc_trim(v.v[i]), *eq = strchr(item, '='), *end;
		long long n;

		if (!eq)
			continue;
		*eq = '\0';
		for (size_t k = 0; k < sizeof(numeric) / sizeof(numeric[0]); k++) {
			if (strcasecmp(item, numeric[k]))
				continue;
			n = strtoll(eq + 1, &end, 10);
			if (end == eq + 1 || *end)
				rc = mdc_strv_pushf(warn, "SchedulerParameters: %s='%s' is not a number: "
						    "slurmctld ignores it", item, eq + 1);
			else if (!strcasecmp(item, "max_script_size") && n > 512LL * 1024 * 1024)
				rc = mdc_strv_pushf(err, "SchedulerParameters: max_script_size=%lld: "
						    "at most 536870912 (512 MB)", n);
		}
	}
	mdc_strv_free(&v);
	return rc;
}

/* gres.c: a node's Gres whose name GresTypes does not list is dropped
 * at the next reconfigure, without an error: a setting kept in the spec
 * that Slurm does not apply (WARN). */
static int rule_gres(const struct sc_conf *c, struct mdc_strv *warn)
{
	const char *types = get(c, "GresTypes");
	int rc = 0;

	for (size_t i = 0; !rc && i < c->nrecs; i++) {
		const struct sc_record *r = &c->recs[i];
		const char *g = r->type == SC_REC_NODE && !r->is_default ?
				sc_record_get(r, "Gres") : NULL;
		struct mdc_strv v = MDC_STRV_INIT;

		if (!g || !*g || !strcasecmp(g, "(null)"))
			continue;
		if (mdc_strv_split(&v, g, ","))
			return MDC_ERR_NOMEM;
		for (size_t k = 0; !rc && k < v.n; k++) {
			char *name = mdc_trim(v.v[k]);

			name[strcspn(name, ":(")] = '\0';
			if (*name && !has_word(types, name))
				rc = mdc_strv_pushf(warn, "NodeName=%s Gres=%s: GresTypes does not "
						    "list '%s': slurmctld drops it at the next "
						    "reconfigure; set GresTypes=%s%s%s (mdcctl "
						    "config set)", r->name, g, name,
						    types ? types : "", types ? "," : "", name);
		}
		mdc_strv_free(&v);
	}
	return rc;
}

/* slurmctld read_config.c: a partition's DefaultTime over its MaxTime is
 * dropped with an info line, and scontrol's update of it is ignored with
 * exit 0: the setting is kept in the spec and not applied (WARN). */
static int rule_default_time(const struct sc_conf *c, struct mdc_strv *warn)
{
	for (size_t i = 0; i < c->nrecs; i++) {
		const struct sc_record *r = &c->recs[i];
		const char *dt, *mt;
		long d, m;

		if (r->type != SC_REC_PARTITION || r->is_default ||
		    !(dt = sc_record_get(r, "DefaultTime")) || !(mt = sc_record_get(r, "MaxTime")))
			continue;
		d = sc_time_minutes(dt);
		m = sc_time_minutes(mt);
		if (d >= 0 && m >= 0 && d > m &&
		    mdc_strv_pushf(warn, "partition %s: DefaultTime=%s exceeds MaxTime=%s: "
				   "slurmctld drops DefaultTime (jobs without --time get "
				   "MaxTime); lower DefaultTime or raise MaxTime", r->name, dt, mt))
			return MDC_ERR_NOMEM;
	}
	return 0;
}

/* Only priority/multifactor reads these (priority_multifactor.c, and
 * partition_mgr.c's partition factor for it); priority/basic, 22.05's
 * default, orders jobs by submission: with it they are kept and do
 * nothing (WARN: the cluster's keys in one warning, each partition in its
 * own, so that an old one is told apart from the one a change makes). */
static int rule_priority(const struct sc_conf *c, struct mdc_strv *warn)
{
	static const char *const keys[] = {
		"PriorityWeightAge", "PriorityWeightAssoc", "PriorityWeightFairshare",
		"PriorityWeightJobSize", "PriorityWeightPartition", "PriorityWeightQOS",
		"PriorityWeightTRES", "PriorityDecayHalfLife", "PriorityCalcPeriod",
		"PriorityFavorSmall", "PriorityMaxAge", "PriorityUsageResetPeriod",
	};
	const char *type = get(c, "PriorityType"), *f;
	const char *is = type ? type : "priority/basic (the default)";
	struct mdc_buf set = MDC_BUF_INIT;
	size_t n = 0;
	int rc = 0;

	if (type && !strcasecmp(type, "priority/multifactor"))
		return 0;
	for (size_t i = 0; !rc && i < sizeof(keys) / sizeof(keys[0]); i++)
		if (get(c, keys[i]) && ++n)
			rc = mdc_buf_addf(&set, "%s%s", set.len ? ", " : "", keys[i]);
	if (!rc && n)
		rc = mdc_strv_pushf(warn, "%s: only PriorityType=priority/multifactor reads %s, and "
				    "PriorityType is %s: %s no effect; set PriorityType=priority/multifactor "
				    "(mdcctl config set)", set.s, n > 1 ? "these" : "it", is,
				    n > 1 ? "they have" : "it has");
	for (size_t i = 0; !rc && i < c->nrecs; i++) {
		const struct sc_record *r = &c->recs[i];

		if (r->type == SC_REC_PARTITION && (f = sc_record_get(r, "PriorityJobFactor")) && strcmp(f, "1"))
			rc = mdc_strv_pushf(warn, "PartitionName=%s PriorityJobFactor=%s: only "
					    "PriorityType=priority/multifactor reads it, and PriorityType is %s: "
					    "it has no effect (PriorityTier orders partitions under any "
					    "PriorityType); set PriorityType=priority/multifactor (mdcctl config "
					    "set)", r->name, f, is);
	}
	mdc_buf_free(&set);
	return rc;
}

/* A partition's PreemptMode is read by the preempt plugins only
 * (slurm.conf(5): "when PreemptType=preempt/partition_prio is configured",
 * and preempt/qos): with preempt/none, the default, no job is preempted
 * and it is kept and does nothing (WARN). */
static int rule_part_preempt(const struct sc_conf *c, struct mdc_strv *warn)
{
	const char *type = get(c, "PreemptType"), *m;

	if (type && strcasecmp(type, "preempt/none"))
		return 0;
	for (size_t i = 0; i < c->nrecs; i++) {
		const struct sc_record *r = &c->recs[i];

		/* GANG alone is gang scheduling, not preemption */
		if (r->type == SC_REC_PARTITION && (m = sc_record_get(r, "PreemptMode")) &&
		    strcasecmp(m, "OFF") && strcasecmp(m, "GANG") &&
		    mdc_strv_pushf(warn, "PartitionName=%s PreemptMode=%s: PreemptType is %s: no job "
				   "is preempted, so it has no effect; set "
				   "PreemptType=preempt/partition_prio (or preempt/qos) with mdcctl "
				   "config set", r->name, m, type ? type : "preempt/none (the default)"))
			return MDC_ERR_NOMEM;
	}
	return 0;
}

/* read_config.c: DefMemPerCPU with DefMemPerNode (MaxMemPerCPU with
 * MaxMemPerNode), for the cluster or a partition: the PerCPU one is
 * ignored and every Slurm client prints an error line about it (WARN). */
static int rule_mem_one_of(const struct sc_conf *c, struct mdc_strv *warn)
{
	static const char *const pairs[][2] = {
		{ "DefMemPerCPU", "DefMemPerNode" }, { "MaxMemPerCPU", "MaxMemPerNode" },
	};

	for (size_t k = 0; k < sizeof(pairs) / sizeof(pairs[0]); k++) {
		const char *cpu = get(c, pairs[k][0]), *node = get(c, pairs[k][1]);

		for (size_t i = 0; ; i++) {
			const struct sc_record *r = i ? &c->recs[i - 1] : NULL;

			if (i > c->nrecs)
				break;
			if (r) {
				if (r->type != SC_REC_PARTITION)
					continue;
				cpu = sc_record_get(r, pairs[k][0]);
				node = sc_record_get(r, pairs[k][1]);
			}
			if (cpu && node &&
			    mdc_strv_pushf(warn, "%s%s%s%s=%s and %s=%s: Slurm keeps %s, ignores %s and "
					   "every Slurm command prints an error about it; remove %s",
					   r ? "PartitionName=" : "", r ? r->name : "", r ? " " : "",
					   pairs[k][0], cpu, pairs[k][1], node, pairs[k][1], pairs[k][0],
					   pairs[k][0]))
				return MDC_ERR_NOMEM;
		}
	}
	return 0;
}

static int (*const rules[])(const struct sc_conf *, struct mdc_strv *) = {
	rule_preempt, rule_select, rule_prolog, rule_lists,
};
/* what Slurm takes and then does not apply */
static int (*const warn_rules[])(const struct sc_conf *, struct mdc_strv *) = {
	rule_gres, rule_default_time, rule_priority, rule_part_preempt, rule_mem_one_of,
};

static int check_kv(const struct sc_kv *kv, struct mdc_strv *err, struct mdc_strv *warn)
{
	char why[512];
	int sev = mdc_value_check(kv->key, kv->value, why, sizeof(why));

	if (sev == 2)
		return mdc_strv_push(err, why);
	if (sev == 1)
		return mdc_strv_push(warn, why);
	return 0;
}

static int ours(const char *text, const char *name, const struct sc_conf *parsed,
		struct mdc_slurmcheck *res)
{
	struct sc_conf *own = NULL;
	const struct sc_conf *c = parsed;
	struct mdc_ctx lctx;
	int rc = MDC_ERR_NOMEM;

	if (!c) {
		if (!(c = own = sc_conf_new()))
			return MDC_ERR_NOMEM;
		/* the file's syntax is sc_conf's business: here only what
		 * Slurm's parser refuses beyond it, read leniently */
		own->flags = SC_PARSE_LENIENT | SC_PARSE_NO_INCLUDE;
		mdc_ctx_clear(&lctx);
		(void) sc_conf_load_string(own, text, strlen(text), name, &lctx);
	}
	for (size_t i = 0; i < c->nglobals; i++)
		if (check_kv(&c->globals[i], &res->errors, &res->warnings))
			goto out;
	for (size_t i = 0; i < c->nrecs; i++) {
		const struct sc_record *r = &c->recs[i];

		if (r->type != SC_REC_PARTITION)
			continue;
		for (size_t j = 0; j < r->nkv; j++) {
			const struct sc_kv *kv = &r->kv[j];
			char why[512];
			int sev;

			/* a partition's PreemptMode has the same words, without
			 * the cluster-wide PreemptType rules */
			sev = mdc_value_check(kv->key, kv->value, why, sizeof(why));
			if (sev && mdc_strv_pushf(sev == 2 ? &res->errors : &res->warnings,
						  "partition %s: %s", r->name, why))
				goto out;
		}
	}
	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
		if (rules[i](c, &res->errors))
			goto out;
	if (rule_sched(c, &res->errors, &res->warnings))
		goto out;
	for (size_t i = 0; i < sizeof(warn_rules) / sizeof(warn_rules[0]); i++)
		if (warn_rules[i](c, &res->warnings))
			goto out;
	res->ran_ours = true;
	rc = 0;
out:
	sc_conf_free(own);
	return rc;
}

/* ---- Slurm's parser in a child ------------------------------------------- */

const char *mdc_slurmcheck_helper(char *buf, size_t bufsz)
{
	const char *env = getenv("MDC_SLURMCHECK_HELPER");
	const char *name = "/mdc-slurmcheck";
	ssize_t n;
	char *slash;

	/* set (even empty): that program or none, for the build tree's tests */
	if (env) {
		if (!*env || access(env, X_OK))
			return NULL;
		snprintf(buf, bufsz, "%s", env);
		return buf;
	}
	if ((size_t) snprintf(buf, bufsz, "%s%s", MDC_PKGLIBEXECDIR, name) < bufsz &&
	    !access(buf, X_OK))
		return buf;
	/* not installed: a program run from the build tree finds its sibling */
	n = readlink("/proc/self/exe", buf, bufsz);
	if (n <= 0 || (size_t) n >= bufsz)
		return NULL;
	buf[n] = '\0';
	if (!(slash = strrchr(buf, '/')) || (size_t) (slash - buf) + strlen(name) >= bufsz)
		return NULL;
	strcpy(slash, name);
	return access(buf, X_OK) ? NULL : buf;
}

/* Slurm's "prog: error: msg" / "prog: fatal: msg" lines as "error: msg";
 * the generic "Unable to process configuration file" says nothing more. */
static int collect_words(const char *out, const char *tmpdir, struct mdc_slurmcheck *res)
{
	struct mdc_strv lines = MDC_STRV_INIT;
	int rc = 0;

	if (mdc_strv_split(&lines, out, "\n"))
		return MDC_ERR_NOMEM;
	for (size_t i = 0; !rc && i < lines.n; i++) {
		char *l = lines.v[i], *w = strstr(l, "error: "), *f = strstr(l, "fatal: "), *t;
		char buf[1024];

		if (f && (!w || f < w))
			w = f;
		if (!w || strstr(w, "Unable to process configuration file"))
			continue;
		/* the temporary path means nothing to the user */
		/* "error: " adds nothing after "Slurm: "; "fatal: " does */
		snprintf(buf, sizeof(buf), "%s", w == f ? w : w + strlen("error: "));
		while ((t = strstr(buf, tmpdir))) {
			size_t n = strlen(tmpdir);

			memmove(t, t + n + (t[n] == '/'), strlen(t + n + (t[n] == '/')) + 1);
		}
		mdc_trim(buf);
		if (!mdc_strv_has(&res->slurm_words, buf))
			rc = mdc_strv_push(&res->slurm_words, buf);
	}
	mdc_strv_free(&lines);
	return rc ? MDC_ERR_NOMEM : 0;
}

/* ---- slurmctld's own start-up (the controller's verdict) ----------------
 *
 * The client parser above does not run slurmctld's validation (removed
 * options such as FastSchedule, plugin init, node/partition checks are
 * fatal only there).  So the release's slurmctld reads the file too, in a
 * sandbox: new net, UTS and pid namespaces (no route to, and no port of,
 * the running cluster; its hostname set to SlurmctldHost so that it is the
 * controller; killing unshare kills everything inside), with its state,
 * pid and log paths rewritten into our scratch directory.  It dies with a
 * fatal: refused with its words; it listens and has logged "Running as
 * primary controller" (after read_slurm_conf and most plugins' init):
 * accepted, and killed.  The mcs and sched plugins load only after that
 * line (controller.c, 22.05 to 26.05), so a plugin no release ships is
 * refused before this, from the table (sc_rel_check_plugins).  Listening alone
 * is not enough: 24.11 and later open their ports before the plugins'
 * init, so a select/cons_res was missed there.  Its log level is info in
 * the copy, so that the line is written whatever SlurmctldDebug says.
 */

#define CTLD_UP "MDC-CTLD-UP"
#define CTLD_EXIT "MDC-CTLD-EXIT "

/* Run inside the namespaces: $1 hostname, $2 slurmctld, $3 conf, $4 its
 * output.  A non-loopback address on lo: getaddrinfo's AI_ADDRCONFIG
 * finds no address to listen on otherwise.  Its LISTEN socket shows in
 * /proc/net/tcp* of this namespace only. */
static const char ctld_script[] =
	"hostname \"$1\" || exit 97\n"
	"ip link set lo up && ip addr add 192.0.2.1/32 dev lo || exit 98\n"
	"\"$2\" -D -c -i -f \"$3\" >\"$4\" 2>&1 </dev/null &\n"
	"p=$!\n"
	"l=\"${3%/*}/ctld.log\"\n"
	"while kill -0 $p 2>/dev/null; do\n"
	"  if grep -qs ' 0A ' /proc/net/tcp /proc/net/tcp6 &&\n"
	"     grep -qs 'Running as primary controller' \"$l\" \"$4\"; then\n"
	"    echo " CTLD_UP "; cat \"$4\"; kill -9 $p; exit 0; fi\n"
	"  sleep 0.005\n"
	"done\n"
	"wait $p; echo \"" CTLD_EXIT "$?\"; cat \"$4\"\n";

const char *mdc_slurmcheck_slurmctld(char *buf, size_t bufsz)
{
	static const char *const paths[] = {
		"/usr/sbin/slurmctld", "/usr/local/sbin/slurmctld", "/opt/slurm/sbin/slurmctld",
	};
	const char *env = getenv("MDC_SLURMCTLD");
	int n;

	if (!buf || !bufsz)
		return NULL;
	/* set (even empty): that program or none */
	if (env) {
		n = snprintf(buf, bufsz, "%s", env);
		return *env && (size_t) n < bufsz && !access(buf, X_OK) ? buf : NULL;
	}
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		n = snprintf(buf, bufsz, "%s", paths[i]);
		if ((size_t) n < bufsz && !access(buf, X_OK))
			return buf;
	}
	return NULL;
}

/* Keys slurmctld writes to or takes its identity from: rewritten into
 * DIR (NULL value: the running user; SlurmctldDebug: info, see above). */
static const struct { const char *key, *file; } ctld_paths[] = {
	{ "StateSaveLocation", "state" }, { "SlurmctldPidFile", "ctld.pid" },
	{ "SlurmctldLogFile", "ctld.log" }, { "SlurmSchedLogFile", "sched.log" },
	{ "SlurmdSpoolDir", "spool" }, { "SlurmdPidFile", "slurmd.pid" },
	{ "SlurmdLogFile", "slurmd.log" }, { "SlurmUser", NULL },
	{ "SlurmctldDebug", NULL },
};

static bool line_key(const char *l, size_t n, const char *key)
{
	size_t k = strlen(key);

	while (n && (*l == ' ' || *l == '\t'))
		l++, n--;
	return n > k && !strncasecmp(l, key, k) && l[k] == '=';
}

/* A TRES slurmctld takes from slurmdbd (controller.c _init_tres: a type
 * with a name, bar fs/disk): without slurmdbd it stops on 'slurmdbd is
 * required to run with TRES gres/gpu', so on an accounting cluster the
 * sandbox leaves these out.  bb/cray, a nameless one and an unknown type
 * stay: slurmctld stops on those before it asks. */
static bool tres_from_dbd(const char *t, size_t n)
{
	static const char *const named[] = { "gres/", "license/", "fs/", "ic/", "bb/" };

	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++) {
		size_t k = strlen(named[i]);

		if (n <= k || strncasecmp(t, named[i], k))
			continue;
		/* fs/disk is built in; bb/cray is refused before slurmdbd is asked */
		return strncasecmp(t, "fs/disk", 7) && !(n == 7 && !strncasecmp(t, "bb/cray", 7));
	}
	return false;
}

/* The line L (AccountingStorageTRES=...) into OUT without the TRES
 * slurmdbd would give; no line when none is left (slurmctld's default). */
static int ctld_tres_line(const char *l, size_t n, struct mdc_buf *out)
{
	const char *eq = memchr(l, '=', n), *v = eq + 1, *end = l + n;
	struct mdc_buf keep = MDC_BUF_INIT;
	int rc = 0;

	while (!rc && v < end) {
		size_t k = strcspn(v, ",");

		if (v + k > end)
			k = (size_t) (end - v);
		if (k && !tres_from_dbd(v, k))
			rc = (keep.len && mdc_buf_addc(&keep, ',')) || mdc_buf_add(&keep, v, k);
		v += k + 1;
	}
	if (!rc && keep.len)
		rc = mdc_buf_add(out, l, (size_t) (eq + 1 - l)) ||
		     mdc_buf_add(out, keep.s, keep.len) || mdc_buf_addc(out, '\n');
	mdc_buf_free(&keep);
	return rc;
}

/* TEXT for the sandbox in DIR (its path keys rewritten), and the
 * controller's host name in HOST. */
static int ctld_conf(const char *text, const char *dir, struct mdc_buf *out, char *host,
		     size_t hostsz)
{
	const struct passwd *pw = getpwuid(geteuid());
	const char *p = text;
	bool dbd = false;
	int rc = 0;

	/* slurmdbd is out of the sandbox's reach (no network): slurmctld
	 * would stop on 'slurmdbd and/or database must be up' or 'no TRES
	 * from it' for every accounting cluster.  The sandbox runs without
	 * accounting; the client parser has judged those keys' values. */
	for (const char *l = text; *l;) {
		const char *nl = strchr(l, '\n');
		size_t n = nl ? (size_t) (nl - l) : strlen(l);

		char line[256];

		snprintf(line, sizeof(line), "%.*s", (int) n, l);
		if (line_key(l, n, "AccountingStorageType") && strstr(line, "slurmdbd"))
			dbd = true;
		l = nl ? nl + 1 : l + n;
	}
	*host = '\0';
	while (*p && !rc) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t) (nl - p) : strlen(p);
		bool drop = dbd && (line_key(p, n, "AccountingStorageType") ||
				    line_key(p, n, "AccountingStorageEnforce"));

		for (size_t i = 0; i < sizeof(ctld_paths) / sizeof(ctld_paths[0]); i++)
			drop = drop || line_key(p, n, ctld_paths[i].key);
		if (!*host && (line_key(p, n, "SlurmctldHost") || line_key(p, n, "ControlMachine"))) {
			const char *v = memchr(p, '=', n) + 1;

			snprintf(host, hostsz, "%.*s", (int) strcspn(v, "(, \t\r\n#"), v);
		}
		if (!drop && dbd && line_key(p, n, "AccountingStorageTRES"))
			rc = ctld_tres_line(p, n, out);
		else if (!drop)
			rc = mdc_buf_add(out, p, n) || mdc_buf_addc(out, '\n');
		p = nl ? nl + 1 : p + n;
	}
	for (size_t i = 0; !rc && i < sizeof(ctld_paths) / sizeof(ctld_paths[0]); i++)
		rc = ctld_paths[i].file ?
		     mdc_buf_addf(out, "%s=%s/%s\n", ctld_paths[i].key, dir, ctld_paths[i].file) :
		     !strcmp(ctld_paths[i].key, "SlurmctldDebug") ?
		     mdc_buf_addf(out, "%s=info\n", ctld_paths[i].key) :
		     pw ? mdc_buf_addf(out, "%s=%s\n", ctld_paths[i].key, pw->pw_name) : 0;
	if (!rc && dbd)
		rc = mdc_buf_adds(out, "AccountingStorageType=accounting_storage/none\n");
	return rc ? MDC_ERR_NOMEM : 0;
}

/* Remove the sandbox PATH: its files and directories (slurmctld's state
 * dir), never following a link. */
static void rm_tree(const char *path, int depth)
{
	DIR *d = depth < 4 ? opendir(path) : NULL;
	struct dirent *e;
	struct stat st;

	while (d && (e = readdir(d))) {
		char *sub;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
		    !(sub = mdc_path_join(path, e->d_name)))
			continue;
		if (!lstat(sub, &st) && S_ISDIR(st.st_mode))
			rm_tree(sub, depth + 1);
		else
			unlink(sub);
		free(sub);
	}
	if (d)
		closedir(d);
	rmdir(path);
}

/* slurmctld's fatal: lines (else its last error: line) into RES. */
static int ctld_words(const char *out, const char *dir, int status, struct mdc_slurmcheck *res)
{
	struct mdc_strv lines = MDC_STRV_INIT, words = MDC_STRV_INIT;
	char last[1024] = "";
	int rc = 0;

	if (mdc_strv_split(&lines, out, "\n"))
		return MDC_ERR_NOMEM;
	for (size_t i = 0; !rc && i < lines.n; i++) {
		char *f = strstr(lines.v[i], "fatal: "), *e = strstr(lines.v[i], "error: "), *t;
		char buf[1024];

		if (!f && !e)
			continue;
		snprintf(buf, sizeof(buf), "%s", f ? f : e);
		while ((t = strstr(buf, dir))) {
			size_t n = strlen(dir);

			memmove(t, t + n + (t[n] == '/'), strlen(t + n + (t[n] == '/')) + 1);
		}
		mdc_trim(buf);
		if (f && !mdc_strv_has(&words, buf))
			rc = mdc_strv_push(&words, buf);
		else if (!f)
			snprintf(last, sizeof(last), "%s", buf);
	}
	if (!rc && !words.n)
		rc = *last ? mdc_strv_pushf(&words, "stopped at start-up (exit %d) after: %s", status,
					    last)
			   : mdc_strv_pushf(&words, "stopped at start-up (exit %d)", status);
	for (size_t i = 0; !rc && i < words.n; i++)
		rc = mdc_strv_pushf(&res->errors, "slurmctld: %s", words.v[i]) ||
		     (!mdc_strv_has(&res->slurm_words, words.v[i]) &&
		      mdc_strv_pushf(&res->slurm_words, "slurmctld: %s", words.v[i]));
	mdc_strv_free(&lines);
	mdc_strv_free(&words);
	return rc ? MDC_ERR_NOMEM : 0;
}

/* Files slurmctld reads beside slurm.conf at start.  Without topology.conf
 * (TopologyPlugin=topology/tree) or helpers.conf (node_features/helpers)
 * it waits 60 s for the file, so a cluster using them had its start-up
 * check time out and skipped on every change; the others it would judge
 * by their defaults. */
static const char *const ctld_beside[] = {
	"topology.conf", "helpers.conf", "cgroup.conf", "gres.conf", "acct_gather.conf",
	"mpi.conf", "job_container.conf", "oci.conf", "burst_buffer.conf", "knl_generic.conf",
};

/* Link into the sandbox SDIR those of CONF_DIR (read only: slurmctld reads
 * them; rm_tree unlinks, never follows). */
static void ctld_link_beside(const char *conf_dir, const char *sdir)
{
	for (size_t i = 0; conf_dir && i < sizeof(ctld_beside) / sizeof(ctld_beside[0]); i++) {
		char *rel = mdc_path_join(conf_dir, ctld_beside[i]);
		/* absolute: the link lives in SDIR, the directory may be "." */
		char *from = rel ? realpath(rel, NULL) : NULL;
		char *to = mdc_path_join(sdir, ctld_beside[i]);
		struct stat st;

		if (from && to && !stat(from, &st) && S_ISREG(st.st_mode) && symlink(from, to))
			mdc_debug("slurmctld's sandbox: cannot link %s: %s", from, strerror(errno));
		free(rel);
		free(from);
		free(to);
	}
}

/* Why slurmctld did not start in time, from its output file OPATH: the
 * file it waits for (s_p_parse_file retries a missing one for 60 s). */
static void ctld_waits_for(const char *opath, const char *sdir, char *why, size_t whysz)
{
	static const char mark[] = "cannot stat file ";
	char *text = NULL, *at, *end;
	struct mdc_ctx c;

	mdc_ctx_clear(&c);
	*why = '\0';
	if (mdc_read_regular(opath, 256 * 1024, 0, &text, NULL, &c) || !(at = strstr(text, mark))) {
		free(text);
		return;
	}
	at += strlen(mark);
	end = at + strcspn(at, ": \n");
	if (!strncmp(at, sdir, strlen(sdir)) && at[strlen(sdir)] == '/')
		at += strlen(sdir) + 1;
	snprintf(why, whysz, ": it waits for %.*s, which is not beside the checked file",
		 (int) (end - at), at);
	free(text);
}

/* slurmctld's verdict on TEXT, in a sandbox under DIR. */
static int run_ctld(const char *text, const char *dir, const char *conf_dir, double timeout,
		    struct mdc_slurmcheck *res)
{
	char cbuf[4096], host[256];
	const char *ctld = mdc_slurmcheck_slurmctld(cbuf, sizeof(cbuf));
	struct mdc_run_opts ro = { .out_cap = 256 * 1024, .timeout_s = timeout, .merge_err = true,
				   .search_path = true, .null_stdio = true };
	struct mdc_buf conf = MDC_BUF_INIT, out = MDC_BUF_INIT;
	struct mdc_run_result rr;
	struct mdc_ctx lctx;
	char *sdir = NULL, *cpath = NULL, *opath = NULL;
	const char *o, *env = getenv("MDC_SLURMCTLD");
	int rc = 0;

	if (!ctld) {
		res->ctld_skipped = strdup(!env ? "slurmctld is not installed (Debian: slurmctld)"
					   : !*env ? "turned off (MDC_SLURMCTLD is empty)"
					   : "MDC_SLURMCTLD names no executable");
		return res->ctld_skipped ? 0 : MDC_ERR_NOMEM;
	}
	if (!(sdir = mdc_path_join(dir, "ctld")) || !(cpath = mdc_path_join(sdir, "slurm.conf")) ||
	    !(opath = mdc_path_join(sdir, "out"))) {
		rc = MDC_ERR_NOMEM;
		goto out;
	}
	mdc_ctx_clear(&lctx);
	if (mkdir(sdir, 0700) || (rc = ctld_conf(text, sdir, &conf, host, sizeof(host))) ||
	    mdc_write_file_scratch(cpath, mdc_buf_str(&conf), conf.len, 0600, &lctx)) {
		if (!rc && !(res->ctld_skipped = strdup("cannot write slurmctld's sandbox")))
			rc = MDC_ERR_NOMEM;
		goto out;
	}
	ctld_link_beside(conf_dir, sdir);
	{
		char *argv[] = { "unshare", "--net", "--uts", "--pid", "--fork", "--kill-child",
				 "bash", "-c", (char *) ctld_script, "mdc-ctldcheck",
				 *host ? host : "localhost", (char *) ctld, cpath, opath, NULL };

		rc = mdc_run(argv, &ro, &out, NULL, &rr, &lctx);
	}
	if (rc) {
		rc = rc == MDC_ERR_NOMEM ? rc : (res->ctld_skipped = strdup(lctx.msg)) ? 0 : MDC_ERR_NOMEM;
		goto out;
	}
	o = mdc_buf_str(&out);
	if (mdc_startswith(o, CTLD_UP)) {
		res->ran_ctld = true;
	} else if (mdc_startswith(o, CTLD_EXIT) && strstr(o, "failed to initialize auth plugin")) {
		/* 24.11 and later stop when no munged answers the sandbox (22.05
		 * waits); AuthType/AuthInfo are the service's, so this says
		 * nothing of the change: its verdict is left out, and said so */
		if (!(res->ctld_skipped = strdup("its auth plugin found no munged to talk to (is "
						 "munged running, at AuthInfo's socket?)")))
			rc = MDC_ERR_NOMEM;
	} else if (mdc_startswith(o, CTLD_EXIT)) {
		res->ran_ctld = true;
		rc = ctld_words(o, sdir, atoi(o + strlen(CTLD_EXIT)), res);
	} else {
		char m[640], why[300];

		if (rr.timed_out) {
			ctld_waits_for(opath, sdir, why, sizeof(why));
			snprintf(m, sizeof(m), "slurmctld did not start in %.0f s%s", timeout, why);
		} else
			snprintf(m, sizeof(m), "cannot sandbox slurmctld (unshare --net --uts --pid, "
				 "ip): exit %d: %.300s", rr.status, o);
		if (!(res->ctld_skipped = strdup(m)))
			rc = MDC_ERR_NOMEM;
		else
			mdc_trim(res->ctld_skipped);
	}
out:
	if (sdir)
		rm_tree(sdir, 0);
	free(sdir);
	free(cpath);
	free(opath);
	mdc_buf_free(&conf);
	mdc_buf_free(&out);
	return rc;
}

/* A helper started ahead of its file (mdc_slurmcheck_prestart), and the
 * library it loads.  One per process, for single-threaded tools. */
static struct {
	struct mdc_run_child *child;
	char lib[4096];
} warm;

void mdc_slurmcheck_prestart(void)
{
	/* stdin a pipe: the path comes at the finish */
	static const struct mdc_run_opts wo = { .in = "", .merge_err = true, .null_stdio = true };
	char hbuf[4096], lbuf[4096];
	const char *helper = mdc_slurmcheck_helper(hbuf, sizeof(hbuf));
	const char *lib = mdc_slurmcheck_library(lbuf, sizeof(lbuf));
	char *argv[] = { (char *) helper, (char *) lib, "-", NULL };
	struct mdc_ctx ctx;

	if (warm.child || !helper || !lib)
		return;
	mdc_ctx_clear(&ctx);
	/* a helper that cannot start now is started (and reported) later */
	if (!mdc_run_start(argv, &wo, true, false, &warm.child, &ctx))
		snprintf(warm.lib, sizeof(warm.lib), "%s", lib);
}

void mdc_slurmcheck_prestart_end(void)
{
	struct mdc_run_result rr;
	struct mdc_ctx ctx;

	if (!warm.child)
		return;
	/* no path: it reads the end of its input and exits */
	mdc_ctx_clear(&ctx);
	mdc_run_finish(warm.child, NULL, NULL, NULL, &rr, &ctx);
	warm.child = NULL;
}

/* Run Slurm's parser on PATH in the helper program (the one started ahead
 * when it loaded LIB); fills RES (ran_slurm / slurm_skipped / slurm_words
 * / errors). */
static int run_slurm(const char *lib, const char *path, const char *tmpdir, double timeout,
		     struct mdc_slurmcheck *res)
{
	char hbuf[4096];
	const char *helper = mdc_slurmcheck_helper(hbuf, sizeof(hbuf));
	struct mdc_run_opts ro = { .out_cap = 64 * 1024, .timeout_s = timeout, .merge_err = true,
				   .null_stdio = true };
	struct mdc_run_result rr;
	struct mdc_buf out = MDC_BUF_INIT;
	char *argv[] = { (char *) helper, (char *) lib, (char *) path, NULL };
	struct mdc_ctx lctx;
	int rc = 0;

	if (!helper) {
		res->slurm_skipped = strdup("the check program mdc-slurmcheck is not installed "
					    "(expected in " MDC_PKGLIBEXECDIR ")");
		return res->slurm_skipped ? 0 : MDC_ERR_NOMEM;
	}
	mdc_ctx_clear(&lctx);
	if (warm.child && !strcmp(warm.lib, lib)) {
		struct mdc_run_child *c = warm.child;
		struct mdc_buf line = MDC_BUF_INIT;

		warm.child = NULL;
		if (mdc_buf_addf(&line, "%s\n", path)) {
			mdc_ctx_clear(&lctx);
			mdc_run_finish(c, NULL, NULL, NULL, &rr, &lctx);
			return MDC_ERR_NOMEM;
		}
		ro.in = line.s;
		ro.inlen = line.len;
		rc = mdc_run_finish(c, &ro, &out, NULL, &rr, &lctx);
		mdc_buf_free(&line);
	} else {
		rc = mdc_run(argv, &ro, &out, NULL, &rr, &lctx);
	}
	if (rc) {
		if (rc == MDC_ERR_NOMEM)
			goto out;
		/* a helper that cannot start is a skipped check, not a failure */
		rc = (res->slurm_skipped = strdup(lctx.msg)) ? 0 : MDC_ERR_NOMEM;
		goto out;
	}
	if (rr.timed_out) {
		char m[96];

		snprintf(m, sizeof(m), "Slurm's parser did not finish in %.0f s", timeout);
		if (!(res->slurm_skipped = strdup(m)))
			rc = MDC_ERR_NOMEM;
		goto out;
	}
	if (rr.status == 3 || rr.status == 2) {
		const char *m = strstr(mdc_buf_str(&out), "mdc-skip: ");
		char *nl;

		res->slurm_skipped = strdup(m ? m + strlen("mdc-skip: ") : "libslurmfull unusable");
		if (res->slurm_skipped && (nl = strchr(res->slurm_skipped, '\n')))
			*nl = '\0';
		rc = res->slurm_skipped ? 0 : MDC_ERR_NOMEM;
		goto out;
	}
	res->ran_slurm = true;
	if ((rc = collect_words(mdc_buf_str(&out), tmpdir, res)))
		goto out;
	if (rr.status != 0) {
		if (!res->slurm_words.n)
			rc = mdc_strv_pushf(&res->slurm_words, "Slurm's parser %s",
					    rr.status > 128 ? "crashed" : "refused the file");
		for (size_t i = 0; !rc && i < res->slurm_words.n; i++)
			rc = mdc_strv_pushf(&res->errors, "Slurm: %s", res->slurm_words.v[i]);
		rc = rc ? MDC_ERR_NOMEM : 0;
	}
out:
	mdc_buf_free(&out);
	return rc;
}

/* TEXT with each Include made absolute against CONF_DIR; an include that
 * does not exist (Slurm would wait 60 s for it) or is templated is left
 * out, with a warning. */
static int rewrite_includes(const char *text, const char *conf_dir, struct mdc_buf *out,
			    struct mdc_slurmcheck *res)
{
	const char *p = text;

	while (*p) {
		const char *nl = strchr(p, '\n'), *q = p;
		size_t n = nl ? (size_t) (nl - p) : strlen(p);

		while (q < p + n && (*q == ' ' || *q == '\t'))
			q++;
		if ((size_t) (p + n - q) > 8 && !strncasecmp(q, "include", 7) &&
		    (q[7] == ' ' || q[7] == '\t')) {
			char file[4096], *full = NULL;
			const char *f = q + 7;
			size_t fl;

			while (*f == ' ' || *f == '\t')
				f++;
			fl = strcspn(f, " \t\r\n");
			snprintf(file, sizeof(file), "%.*s", (int) fl, f);
			if (file[0] == '/' || !conf_dir)
				full = strdup(file);
			else
				full = mdc_path_join(conf_dir, file);
			if (!full)
				return MDC_ERR_NOMEM;
			if (strchr(full, '%') || access(full, R_OK)) {
				if (mdc_strv_pushf(&res->warnings, "Include %s: %s: not read by "
						   "Slurm's check", file, strchr(full, '%') ?
						   "a templated path" : "no such file")) {
					free(full);
					return MDC_ERR_NOMEM;
				}
			} else if (mdc_buf_addf(out, "Include %s\n", full)) {
				free(full);
				return MDC_ERR_NOMEM;
			}
			free(full);
		} else if (mdc_buf_add(out, p, n) || mdc_buf_addc(out, '\n')) {
			return MDC_ERR_NOMEM;
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	return 0;
}

static int slurm(const char *text, const struct mdc_slurmcheck_opts *o,
		 struct mdc_slurmcheck *res, struct mdc_ctx *ctx)
{
	char libbuf[4096];
	const char *lib = mdc_slurmcheck_library(libbuf, sizeof(libbuf));
	const char *tdir = getenv("TMPDIR");
	struct mdc_buf conf = MDC_BUF_INIT;
	char dir[4096], *path = NULL;
	size_t dropped;
	int rc;

	/* a parser of another release judges another language: 24.11's
	 * keys refused by 22.05's, 22.05's plugins accepted for 24.11 */
	if (sc_rel_target() != sc_rel_build()) {
		char want[160], m[400];

		snprintf(m, sizeof(m), "Slurm's parser here is Slurm %s's and the file is judged "
			 "against %s; a parser of another release would judge it wrongly",
			 sc_rel_name(sc_rel_build()), sc_rel_describe(want, sizeof(want)));
		return (res->slurm_skipped = strdup(m)) ? 0 : MDC_ERR_NOMEM;
	}
	if (!lib) {
		const char *env = getenv("MDC_LIBSLURMFULL");

		/* the variable's own word, so a test or bench run is not
		 * mistaken for a missing package */
		res->slurm_skipped = strdup(!env ? "no libslurmfull installed (Debian: slurm-wlm-basic-plugins)"
					    : !*env ? "turned off (MDC_LIBSLURMFULL is empty)"
					    : "MDC_LIBSLURMFULL names no readable library");
		return res->slurm_skipped ? 0 : MDC_ERR_NOMEM;
	}
	snprintf(dir, sizeof(dir), "%s/mdc-slurmcheck.XXXXXX", tdir && *tdir ? tdir : "/tmp");
	if (!mkdtemp(dir))
		return mdc_fail(ctx, MDC_ERR_IO, "cannot create a temporary directory for Slurm's "
				"check: %s", strerror(errno));
	dropped = res->warnings.n;
	if ((rc = rewrite_includes(text, o->conf_dir, &conf, res)))
		goto out;
	if (!(path = mdc_path_join(dir, "slurm.conf"))) {
		rc = MDC_ERR_NOMEM;
		goto out;
	}
	/* our own new directory, read by the child and removed below */
	if ((rc = mdc_write_file_scratch(path, mdc_buf_str(&conf), conf.len, 0600, ctx)))
		goto out;
	rc = run_slurm(lib, path, dir, o->timeout_s > 0 ? o->timeout_s : 15, res);
	/* the parser refused it: slurmctld would too, no need to ask; an
	 * Include left out would make it refuse what is not wrong */
	if (!rc && res->ran_slurm && !res->errors.n && dropped < res->warnings.n)
		rc = (res->ctld_skipped = strdup("an Include was left out (see the warnings)")) ?
		     0 : MDC_ERR_NOMEM;
	else if (!rc && res->ran_slurm && !res->errors.n)
		rc = run_ctld(mdc_buf_str(&conf), dir, o->conf_dir,
			      o->timeout_s > 0 ? o->timeout_s : 15, res);
out:
	if (path)
		unlink(path);
	rmdir(dir);
	free(path);
	mdc_buf_free(&conf);
	return rc;
}

int mdc_slurmcheck_text(const char *text, const char *name, const struct mdc_slurmcheck_opts *o,
			struct mdc_slurmcheck *res, struct mdc_ctx *ctx)
{
	struct mdc_slurmcheck_opts dflt = { 0, NULL, false, NULL, NULL, NULL, 0, false };
	int rc;

	memset(res, 0, sizeof(*res));
	if (!o)
		o = &dflt;
	if ((rc = ours(text, name ? name : "slurm.conf", o->conf, res)))
		goto out;
	if (o->no_slurm) {
		if (!(res->slurm_skipped = strdup("not asked for")))
			rc = MDC_ERR_NOMEM;
		goto out;
	}
	rc = slurm(text, o, res, ctx);
out:
	if (rc == MDC_ERR_NOMEM)
		mdc_fail(ctx, rc, "out of memory while checking slurm.conf");
	return rc;
}

int mdc_slurmcheck_format_checks(const struct mdc_slurmcheck *res, struct mdc_buf *out)
{
	char lib[4096];

	char ctld[4096];

	if (res->ran_slurm && res->ran_ctld)
		return mdc_buf_addf(out, "checks: ours, Slurm's (%s), slurmctld's start-up (%s)",
				    mdc_slurmcheck_library(lib, sizeof(lib)) ? lib : "?",
				    mdc_slurmcheck_slurmctld(ctld, sizeof(ctld)) ? ctld : "?");
	if (res->ran_slurm)
		return mdc_buf_addf(out, "checks: ours, Slurm's (%s); slurmctld's start-up was "
				    "skipped: %s", mdc_slurmcheck_library(lib, sizeof(lib)) ? lib : "?",
				    res->ctld_skipped ? res->ctld_skipped :
				    res->errors.n ? "Slurm's parser already refused the file" : "?");
	return mdc_buf_addf(out, "checks: ours; Slurm's check was skipped: %s",
			    res->slurm_skipped ? res->slurm_skipped : "?");
}

/* ---- a change ------------------------------------------------------------ */

static int render(const json_object *spec, const char *base, const char *base_name, char **text,
		  struct mdc_ctx *ctx)
{
	struct mdc_buf b = MDC_BUF_INIT;
	int rc = sc_render(spec, base, base_name, &b, ctx);

	if (rc) {
		mdc_buf_free(&b);
		return rc;
	}
	*text = mdc_buf_release(&b);
	return *text ? 0 : mdc_nomem(ctx);
}

/* The current spec's slurm.conf, the yardstick of what is not this
 * change's doing: rendered once, on first need.  0 with TEXT set;
 * MDC_ERR_NOMEM; or -2 when it does not render here (the emulator and the
 * service render it their way), its reason in CTX: then nothing is
 * counted as already there. */
struct cur_conf {
	const json_object *spec;
	const char *base, *name;
	char *text;
	int rc;			/* -1 until rendered */
	struct mdc_ctx ctx;
};

static int cur_conf(struct cur_conf *c)
{
	if (c->rc == -1) {
		mdc_ctx_clear(&c->ctx);
		c->rc = !render(c->spec, c->base, c->name, &c->text, &c->ctx) ? 0 :
			c->ctx.err == MDC_ERR_NOMEM ? MDC_ERR_NOMEM : -2;
	}
	return c->rc;
}

int mdc_slurmcheck_change(const char *live_conf, const json_object *cur_spec,
			  const json_object *new_spec, const struct mdc_slurmcheck_opts *o,
			  struct mdc_strv *warnings, struct mdc_strv *refusals,
			  struct mdc_ctx *ctx)
{
	struct mdc_slurmcheck_opts lo = { 0, NULL, false, NULL, NULL, NULL, 0, false };
	struct mdc_slurmcheck now = MDC_SLURMCHECK_INIT, before = MDC_SLURMCHECK_INIT;
	struct mdc_strv errs = MDC_STRV_INIT, scratch = MDC_STRV_INIT;
	char *live = NULL, *base = NULL, *text = NULL, *dir = NULL;
	struct cur_conf cur = { cur_spec, NULL, live_conf, NULL, -1, { 0 } };
	bool before_done = false;
	struct mdc_ctx lctx;
	int rc;

	if (o)
		lo = *o;
	if (!warnings)
		warnings = &scratch;
	if (lo.base) {
		if (!(base = strdup(lo.base))) {
			rc = mdc_nomem(ctx);
			goto out;
		}
	} else if (live_conf && !access(live_conf, R_OK)) {
		mdc_ctx_clear(&lctx);
		/* a live file we cannot read a base from is no reason to block
		 * the write: judge without it, and say so */
		if (mdc_read_regular(live_conf, SC_FILE_MAX_BYTES, 0, &live, NULL, &lctx) ||
		    sc_render_base(live, cur_spec, &base, &lctx)) {
			if (mdc_strv_pushf(warnings, "Slurm's check was skipped: %s", lctx.msg)) {
				rc = mdc_nomem(ctx);
				goto out;
			}
			free(base);
			base = NULL;
			lo.no_slurm = true;
		} else if (!lo.conf_dir && !(lo.conf_dir = dir = mdc_path_dirname(live_conf))) {
			rc = mdc_nomem(ctx);
			goto out;
		}
	} else {
		/* without the service's part, Slurm would refuse any file */
		lo.no_slurm = true;
	}
	cur.base = base;
	mdc_ctx_clear(&lctx);
	if (render(new_spec, base, live_conf, &text, &lctx)) {
		/* the current spec does not render either: not this change's
		 * doing */
		if (lctx.err == MDC_ERR_NOMEM || cur_conf(&cur) == MDC_ERR_NOMEM) {
			rc = mdc_nomem(ctx);
		} else if (cur.rc) {
			rc = mdc_strv_pushf(warnings, "Slurm's check was skipped: the spec does not "
					    "render to a slurm.conf here: %s", lctx.msg) ?
			     mdc_nomem(ctx) : 0;
		} else {
			if (refusals)
				mdc_strv_pushf(refusals, "slurm.conf after this change: %s", lctx.msg);
			rc = mdc_fail(ctx, MDC_ERR_REFUSED, "refused: the slurm.conf this change "
				      "produces cannot be written: %s; nothing was sent", lctx.msg);
		}
		goto out;
	}
	if ((rc = mdc_slurmcheck_text(text, "slurm.conf", &lo, &now, ctx)))
		goto out;
	if (now.errors.n) {
		/* what the current spec already renders wrong is not this
		 * change's doing: say so, never block a fix on it */
		if (cur_conf(&cur) == MDC_ERR_NOMEM) {
			rc = mdc_nomem(ctx);
			goto out;
		}
		if (!cur.rc && (rc = mdc_slurmcheck_text(cur.text, "slurm.conf", &lo, &before, ctx)))
			goto out;
		before_done = !cur.rc;
		for (size_t i = 0; i < now.errors.n; i++) {
			const char *e = now.errors.v[i];

			if (mdc_strv_has(&before.errors, e) ?
			    mdc_strv_pushf(warnings, "already in the current slurm.conf, not caused "
					   "by this change: %s", e) :
			    mdc_strv_push(&errs, e)) {
				rc = mdc_nomem(ctx);
				goto out;
			}
		}
	}
	/* a warning the current slurm.conf already earns is not this
	 * change's doing: say so (our own check of it, no second Slurm run) */
	if (now.warnings.n && !before_done &&
	    (cur_conf(&cur) == MDC_ERR_NOMEM ||
	     (!cur.rc && ours(cur.text, "slurm.conf", NULL, &before) == MDC_ERR_NOMEM))) {
		rc = mdc_nomem(ctx);
		goto out;
	}
	for (size_t i = 0; i < now.warnings.n; i++)
		if (mdc_strv_has(&before.warnings, now.warnings.v[i]) ?
		    mdc_strv_pushf(warnings, "already in the current slurm.conf, not caused by this "
				   "change: %s", now.warnings.v[i]) :
		    mdc_strv_push(warnings, now.warnings.v[i])) {
			rc = mdc_nomem(ctx);
			goto out;
		}
	if (lo.checks && lo.checkssz) {
		struct mdc_buf cb = MDC_BUF_INIT;

		if (lo.no_slurm && !lo.base)
			mdc_buf_adds(&cb, "checks: ours; Slurm's check was skipped: no live slurm.conf "
				     "to render the change over");
		else
			mdc_slurmcheck_format_checks(&now, &cb);
		snprintf(lo.checks, lo.checkssz, "%s", mdc_buf_str(&cb));
		mdc_buf_free(&cb);
	}
	/* off the cluster nothing else judges the file before the service
	 * writes it: without Slurm's parser no change goes out */
	if (lo.require_slurm && !now.ran_slurm && !errs.n) {
		char rel[160];

		rc = mdc_fail(ctx, MDC_ERR_REFUSED, "refused: Slurm's verdict could not run (%s); "
			      "off the cluster no change is sent without it: run mdcctl where the "
			      "parser of %s is installed (Debian: slurm-wlm-basic-plugins of that "
			      "release, with slurm-mdc's mdc-slurmcheck)%s; nothing was sent",
			      lo.no_slurm && !lo.base ? "no service-managed part of slurm.conf to "
			      "render the change over" : now.slurm_skipped ? now.slurm_skipped : "?",
			      sc_rel_describe(rel, sizeof(rel)),
			      lo.no_slurm && !lo.base ? ", and plan a whole slurm.conf or give "
			      "--base FILE (a copy of the cluster's)" : "");
		if (refusals)
			mdc_strv_pushf(refusals, "Slurm's verdict could not run off the cluster");
		goto out;
	}
	/* a machine without a live slurm.conf has no Slurm to break: a note
	 * for -v; Slurm installed but its check impossible: a warning */
	if (!now.ran_slurm && !errs.n && !lo.base && (!live_conf || access(live_conf, R_OK)))
		mdc_info("Slurm's check was skipped: no live slurm.conf at '%s' to render the "
			 "change over; only our own checks ran", live_conf ? live_conf : "(unset)");
	else if (!now.ran_slurm && !errs.n &&
		 mdc_strv_pushf(warnings, "Slurm's check was skipped: %s; only our own checks ran",
				now.slurm_skipped ? now.slurm_skipped : "?")) {
		rc = mdc_nomem(ctx);
		goto out;
	}
	else if (now.ran_slurm && !now.ran_ctld && !errs.n &&
		 mdc_strv_pushf(warnings, "slurmctld's check was skipped: %s; only the client "
				"parser judged the file, not the controller", now.ctld_skipped ?
				now.ctld_skipped : "?")) {
		rc = mdc_nomem(ctx);
		goto out;
	}
	if (errs.n) {
		struct mdc_buf m = MDC_BUF_INIT;
		const char *slurm_said = now.slurm_words.n ? now.slurm_words.v[0] : NULL;

		for (size_t i = 0; refusals && i < errs.n; i++)
			if (mdc_strv_pushf(refusals, "slurm.conf after this change: %s", errs.v[i]))
				break;
		/* ours first: it says what to write; then Slurm's own words */
		mdc_buf_addf(&m, "refused: the slurm.conf this change produces would break Slurm: %s",
			     errs.v[0]);
		if (slurm_said && !mdc_startswith(errs.v[0], "Slurm: ") &&
		    !mdc_startswith(errs.v[0], "slurmctld: "))
			mdc_buf_addf(&m, " (Slurm says: %s)", slurm_said);
		mdc_buf_addf(&m, "; nothing was sent%s", mdc_startswith(errs.v[0], "Slurm: ") ||
			     mdc_startswith(errs.v[0], "slurmctld: ") ?
			     ": fix the value Slurm names and try again (mdcctl conf check FILE "
			     "shows the same verdict)" : "");
		rc = mdc_fail(ctx, MDC_ERR_REFUSED, "%s", m.len ? mdc_buf_str(&m) : errs.v[0]);
		mdc_buf_free(&m);
	}
out:
	mdc_slurmcheck_free(&now);
	mdc_slurmcheck_free(&before);
	mdc_strv_free(&errs);
	mdc_strv_free(&scratch);
	free(live);
	free(base);
	free(text);
	free(cur.text);
	free(dir);
	return rc;
}

void mdc_slurmcheck_free(struct mdc_slurmcheck *res)
{
	if (!res)
		return;
	free(res->slurm_skipped);
	res->slurm_skipped = NULL;
	free(res->ctld_skipped);
	res->ctld_skipped = NULL;
	mdc_strv_free(&res->errors);
	mdc_strv_free(&res->warnings);
	mdc_strv_free(&res->slurm_words);
}
