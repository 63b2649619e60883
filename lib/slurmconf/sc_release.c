/* sc_release.c - see sc_release.h.  (owner: slurm.conf engine)
 *
 * The facts come from the generated sc_release_tab.c; only what the
 * sources do not say in a form a script can read is written here: which
 * key selects which plugin type, and the plugins Slurm replaced.
 */
#include "config.h"
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "mdc_str.h"
#include "sc_options.h"
#include "sc_release.h"

int sc_rel_parse(const char *text)
{
	const char *p = text;
	char *end;
	long major, minor;

	if (!p)
		return -1;
	while (*p && !isdigit((unsigned char) *p))
		p++;	/* "slurm 24.11.5" */
	major = strtol(p, &end, 10);
	if (end == p || *end != '.')
		return -1;
	p = end + 1;
	minor = strtol(p, &end, 10);
	if (end == p || (*end && *end != '.' && !isspace((unsigned char) *end)))
		return -1;
	for (int i = 0; i < SC_NREL; i++) {
		char want[16];

		snprintf(want, sizeof(want), "%ld.%02ld", major, minor);
		if (!strcmp(want, sc_rel_tab_names[i]))
			return i;
	}
	return -1;
}

const char *sc_rel_name(int rel)
{
	return rel >= 0 && rel < SC_NREL ? sc_rel_tab_names[rel] : "?";
}

/* The newest known release not newer than major.minor of TEXT; 0 when
 * TEXT is older than all or unreadable. */
static int rel_floor(const char *text)
{
	int best = 0;
	unsigned maj = 0, min = 0;

	if (sscanf(text, "%u.%u", &maj, &min) != 2)
		return 0;
	for (int i = 0; i < SC_NREL; i++) {
		unsigned a, b;

		if (sscanf(sc_rel_tab_names[i], "%u.%u", &a, &b) == 2 &&
		    (a < maj || (a == maj && b <= min)))
			best = i;
	}
	return best;
}

int sc_rel_build(void)
{
	return rel_floor(MDC_SLURM_VERSION);
}

/* The target: set once, from several threads of mdcd at most. */
static pthread_mutex_t target_mu = PTHREAD_MUTEX_INITIALIZER;
static int target = -1;
static enum sc_rel_from target_from = SC_REL_FROM_BUILD;
static int (*target_resolver)(enum sc_rel_from *from);

void sc_rel_set_target(int rel, enum sc_rel_from from)
{
	pthread_mutex_lock(&target_mu);
	target = rel >= 0 && rel < SC_NREL ? rel : -1;
	target_from = target < 0 ? SC_REL_FROM_BUILD : from;
	target_resolver = NULL;
	pthread_mutex_unlock(&target_mu);
}

void sc_rel_set_resolver(int (*fn)(enum sc_rel_from *from))
{
	pthread_mutex_lock(&target_mu);
	if (target < 0)
		target_resolver = fn;
	pthread_mutex_unlock(&target_mu);
}

int sc_rel_target(void)
{
	int rel;

	pthread_mutex_lock(&target_mu);
	if (target < 0 && target_resolver) {
		enum sc_rel_from from = SC_REL_FROM_BUILD;
		int r = target_resolver(&from);

		target_resolver = NULL;
		if (r >= 0 && r < SC_NREL) {
			target = r;
			target_from = from;
		}
	}
	if (target < 0) {
		target = sc_rel_build();
		target_from = SC_REL_FROM_BUILD;
	}
	rel = target;
	pthread_mutex_unlock(&target_mu);
	return rel;
}

enum sc_rel_from sc_rel_target_from(void)
{
	enum sc_rel_from f;

	(void) sc_rel_target();
	pthread_mutex_lock(&target_mu);
	f = target_from;
	pthread_mutex_unlock(&target_mu);
	return f;
}

const char *sc_rel_describe(char *buf, size_t bufsz)
{
	static const char *const from[] = {
		[SC_REL_FROM_BUILD] = "the release slurm-mdc was built for",
		[SC_REL_FROM_CONF] = "SlurmRelease in mdc.conf",
		[SC_REL_FROM_LIVE] = "scontrol --version",
		[SC_REL_FROM_REMOTE] = "the cluster's slurmrestd, through callSlurmRestApi",
	};
	int rel = sc_rel_target();

	snprintf(buf, bufsz, "Slurm %s (%s)", sc_rel_name(rel), from[sc_rel_target_from()]);
	return buf;
}

const struct sc_rel_key *sc_rel_key_find(const char *key, unsigned scope)
{
	for (size_t i = 0; key && i < sc_rel_nkeys; i++)
		if ((sc_rel_keys[i].scope & scope) && !strcasecmp(sc_rel_keys[i].name, key))
			return &sc_rel_keys[i];
	return NULL;
}

/* "22.05 and 24.11": the releases where ROW's state is STATE. */
static void rel_list(const unsigned char *state, unsigned char want, char *buf, size_t bufsz)
{
	size_t n = 0;
	int k = 0, cnt = 0;

	for (int i = 0; i < SC_NREL; i++)
		cnt += state[i] == want;
	buf[0] = '\0';
	for (int i = 0; i < SC_NREL && n < bufsz; i++) {
		if (state[i] != want)
			continue;
		k++;
		n += (size_t) snprintf(buf + n, bufsz - n, "%s%s", k == 1 ? "" : k == cnt ? " and " : ", ",
				       sc_rel_tab_names[i]);
	}
}

int sc_rel_check_key(const char *key, unsigned scope, int rel, char *why, size_t whysz)
{
	const struct sc_rel_key *row = NULL;
	unsigned char any[SC_NREL] = { 0 };
	char has[64];
	bool newer = false;

	if (rel < 0 || rel >= SC_NREL || !key)
		return 0;
	/* the key counts as known in REL when any of SCOPE's rows has it */
	for (size_t i = 0; i < sc_rel_nkeys; i++) {
		const struct sc_rel_key *r = &sc_rel_keys[i];

		if (!(r->scope & scope) || strcasecmp(r->name, key))
			continue;
		if (r->state[rel] == SC_REL_KEY)
			return 0;
		if (!row || r->state[rel] == SC_REL_DEFUNCT)
			row = r;
		for (int j = 0; j < SC_NREL; j++)
			if (r->state[j] == SC_REL_KEY)
				any[j] = SC_REL_KEY;
	}
	if (!row)
		return 0;
	for (int j = rel + 1; j < SC_NREL; j++)
		newer |= any[j] == SC_REL_KEY;
	rel_list(any, SC_REL_KEY, has, sizeof(has));
	if (row->state[rel] == SC_REL_DEFUNCT)
		snprintf(why, whysz, "%s is defunct in Slurm %s, the release judged against (it "
			 "reads and ignores it with an error)%s%s%s: remove it", row->name,
			 sc_rel_name(rel), *has ? "; Slurm " : "", has, *has ? " reads it" : "");
	else if (!*has)
		snprintf(why, whysz, "%s is not a key of Slurm %s, the release judged against: "
			 "it went before, and earlier releases already ignored it", row->name,
			 sc_rel_name(rel));
	else
		snprintf(why, whysz, "%s is not a key of Slurm %s, the release judged against: "
			 "it %s (Slurm %s %s it)", row->name, sc_rel_name(rel),
			 newer ? "came with a later release" : "went after an earlier release", has,
			 strchr(has, ' ') ? "have" : "has");
	return 2;
}

/* Keys whose value names plugins of one type (a comma list where Slurm
 * loads several): read_config.c reads each into a slurm_conf field that
 * src/interfaces/ (src/common/ in 22.05) loads as TYPE/NAME. */
static const struct { const char *key, *type; } plugin_keys[] = {
	{ "AccountingStorageType", "accounting_storage" },
	{ "AcctGatherEnergyType", "acct_gather_energy" },
	{ "AcctGatherFilesystemType", "acct_gather_filesystem" },
	{ "AcctGatherInterconnectType", "acct_gather_interconnect" },
	{ "AcctGatherProfileType", "acct_gather_profile" },
	{ "AuthAltTypes", "auth" },
	{ "AuthType", "auth" },
	{ "BurstBufferType", "burst_buffer" },
	{ "CertmgrType", "certmgr" },
	{ "CliFilterPlugins", "cli_filter" },
	{ "CoreSpecPlugin", "core_spec" },
	{ "CredType", "cred" },
	{ "ExtSensorsType", "ext_sensors" },
	{ "HashPlugin", "hash" },
	{ "JobAcctGatherType", "jobacct_gather" },
	{ "JobCompType", "jobcomp" },
	{ "JobContainerType", "job_container" },
	{ "MCSPlugin", "mcs" },
	{ "MetricsType", "metrics" },
	{ "NodeFeaturesPlugins", "node_features" },
	{ "PowerPlugin", "power" },
	{ "PreemptType", "preempt" },
	{ "PrEpPlugins", "prep" },
	{ "PriorityType", "priority" },
	{ "ProctrackType", "proctrack" },
	{ "RoutePlugin", "route" },
	{ "SchedulerType", "sched" },
	{ "SelectType", "select" },
	{ "SiteFactorPlugin", "site_factor" },
	{ "SwitchType", "switch" },
	{ "TaskPlugin", "task" },
	{ "TLSType", "tls" },
	{ "TopologyPlugin", "topology" },
};

/* Plugins Slurm replaced, with the release that did it (its CHANGELOG). */
static const struct { const char *old, *now, *when; } plugin_renames[] = {
	/* CHANGELOG/slurm-23.11.md: "Removed select/cons_res. Please update
	 * your configuration to select/cons_tres." */
	{ "select/cons_res", "select/cons_tres", "23.11" },
};

static const struct sc_rel_plugin *plugin_find(const char *name, size_t n)
{
	for (size_t i = 0; i < sc_rel_nplugins; i++)
		if (strlen(sc_rel_plugins[i].name) == n && !strncmp(sc_rel_plugins[i].name, name, n))
			return &sc_rel_plugins[i];
	return NULL;
}

bool sc_rel_reconfig_restarts(int rel)
{
	/* index 0 is 22.05, the one release here older than 23.11 */
	return rel > 0 && rel < SC_NREL;
}

const char *sc_rel_plugin_type(const char *key)
{
	for (size_t i = 0; key && i < sizeof(plugin_keys) / sizeof(plugin_keys[0]); i++)
		if (mdc_key_eq(plugin_keys[i].key, key))
			return plugin_keys[i].type;
	return NULL;
}

/* TYPE/none: 24.11 builds none of them, yet its code reads some
 * (preempt/none, task/none), so they are never judged */
static bool is_none(const char *type, const char *p, size_t n)
{
	size_t tl = strlen(type);

	return n == tl + 5 && !strncmp(p, type, tl) && !strncmp(p + tl, "/none", 5);
}

size_t sc_rel_plugins_list(const char *type, int rel, char *buf, size_t bufsz)
{
	size_t tl, n = 0, cnt = 0;

	if (!buf || !bufsz)
		return 0;
	buf[0] = '\0';
	if (!type || rel < 0 || rel >= SC_NREL)
		return 0;
	tl = strlen(type);
	for (size_t i = 0; i < sc_rel_nplugins; i++) {
		const char *name = sc_rel_plugins[i].name;

		if (!sc_rel_plugins[i].has[rel] || strncmp(name, type, tl) || name[tl] != '/' ||
		    is_none(type, name, strlen(name)))
			continue;
		cnt++;
		if (n < bufsz)
			n += (size_t) snprintf(buf + n, bufsz - n, "%s%s", n ? ", " : "", name);
	}
	/* cut: end on a whole name */
	if (n >= bufsz && bufsz > 4) {
		char *c = strrchr(buf, ',');

		if (c && (size_t) (c - buf) + 5 <= bufsz)
			strcpy(c, ", ...");
	}
	return cnt;
}

const char *sc_rel_plugin_suggest(const char *type, const char *value, size_t len, int rel)
{
	size_t tl, best = (size_t) -1;
	const char *name = NULL;

	if (!type || !value || rel < 0 || rel >= SC_NREL)
		return NULL;
	tl = strlen(type);
	/* "select/cons_tre" and "cons_tre" alike: the name part is compared */
	if (len > tl && !strncmp(value, type, tl) && value[tl] == '/') {
		value += tl + 1;
		len -= tl + 1;
	}
	for (size_t i = 0; i < sc_rel_nplugins; i++) {
		const char *pn = sc_rel_plugins[i].name;
		size_t d;

		if (!sc_rel_plugins[i].has[rel] || strncmp(pn, type, tl) || pn[tl] != '/' ||
		    is_none(type, pn, strlen(pn)))
			continue;
		d = mdc_str_distance(value, len, pn + tl + 1, strlen(pn + tl + 1));
		if (d < best) {
			best = d;
			name = pn;
		}
	}
	/* further than a third of the name: not a typo of it */
	return best <= (len / 3 > 2 ? len / 3 : 2) ? name : NULL;
}

int sc_rel_check_plugins(const char *key, const char *value, int rel, char *why, size_t whysz)
{
	const char *type, *p = value;
	size_t tl;

	if (rel < 0 || rel >= SC_NREL || !key || !value || !(type = sc_rel_plugin_type(key)))
		return 0;
	tl = strlen(type);
	while (*p) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t) (comma - p) : strlen(p);
		const struct sc_rel_plugin *pl;

		while (n && isspace((unsigned char) *p)) {
			p++;
			n--;
		}
		while (n && isspace((unsigned char) p[n - 1]))
			n--;
		/* a bare name is another check's */
		if (n > tl + 1 && !strncmp(p, type, tl) && p[tl] == '/' && !is_none(type, p, n) &&
		    (!(pl = plugin_find(p, n)) || !pl->has[rel])) {
			char has[64], hint[160] = "", list[512];
			const char *near;

			if (pl) {
				rel_list(pl->has, 1, has, sizeof(has));
				for (size_t i = 0; i < sizeof(plugin_renames) / sizeof(plugin_renames[0]); i++)
					if (!strcmp(plugin_renames[i].old, pl->name))
						snprintf(hint, sizeof(hint), "Slurm %s replaced it with %s; ",
							 plugin_renames[i].when, plugin_renames[i].now);
				snprintf(why, whysz, "%s=%s: Slurm %s, the release judged against, ships no %s "
					 "plugin (%sSlurm %s %s)", key, value, sc_rel_name(rel), pl->name, hint,
					 has, strchr(has, ' ') ? "ship it" : "ships it");
				return 2;
			}
			/* no release has it: slurmctld stops at its init, which in
			 * 22.05-26.05 comes after "Running as primary controller"
			 * for some (mcs, sched), so the sandbox cannot be relied on */
			near = sc_rel_plugin_suggest(type, p, n, rel);
			sc_rel_plugins_list(type, rel, list, sizeof(list));
			snprintf(why, whysz, "%s=%s: Slurm %s, the release judged against, ships no "
				 "%.*s plugin, so slurmctld would stop; %s%s%sits %s plugins: %s",
				 key, value, sc_rel_name(rel), (int) n, p, near ? "did you mean " : "",
				 near ? near : "", near ? "? " : "", type, *list ? list : "none");
			return 2;
		}
		if (!comma)
			break;
		p = comma + 1;
	}
	return 0;
}

const struct sc_rel_words *sc_rel_words_find(const char *key)
{
	for (size_t i = 0; key && i < sc_rel_nwords; i++)
		if (mdc_key_eq(sc_rel_words[i].key, key))
			return &sc_rel_words[i];
	return NULL;
}

bool sc_rel_word_known(const struct sc_rel_words *w, int rel, const char *token, size_t len)
{
	const char *p;

	if (!w || rel < 0 || rel >= SC_NREL)
		return false;
	for (p = w->words[rel]; p && *p;) {
		const char *bar = strchr(p, '|');
		size_t n = bar ? (size_t) (bar - p) : strlen(p);

		if (w->exact) {
			if ((n == len || (n && n < len && p[n - 1] == '=')) && !strncasecmp(p, token, n))
				return true;
		} else {
			for (size_t i = 0; n && i + n <= len; i++)
				if (!strncasecmp(token + i, p, n))
					return true;
		}
		p = bar ? bar + 1 : NULL;
	}
	return false;
}
