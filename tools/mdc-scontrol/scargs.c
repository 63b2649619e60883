/* scargs.c - classify scontrol command words (see scargs.h).  Pure: no
 * I/O, so it is unit-tested alone (test_scontrol.c).
 *
 * scontrol tries its keywords one after the other and the first match
 * wins, so "d" is "details" and "del" is "delete", "D=" is DisableRootJobs
 * and "MaxT=" is MaxTime.  The command and entity chains below are copies,
 * in order, of scontrol 22.05's (keep the order when editing); the key
 * chains of partition and node updates are each release's own, generated
 * from its source (scargs_release_tab.c), and read as the target
 * release's. */
#define _GNU_SOURCE	/* asprintf */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "sc_options.h"
#include "scargs.h"
#include "scargs_release.h"

static const char *const verb_names[] = {
	[SCX_PASS] = "pass-through",
	[SCX_UPDATE_PART] = "update partition",
	[SCX_CREATE_PART] = "create partition",
	[SCX_DELETE_PART] = "delete partition",
	[SCX_UPDATE_NODES] = "update nodes",
	[SCX_SHOW_CONFIG] = "show config",
	[SCX_SHOW_PART] = "show partition",
	[SCX_SHOW_NODESET] = "show nodeset",
};

const char *scx_verb_name(enum scx_verb verb)
{
	return verb <= SCX_SHOW_NODESET ? verb_names[verb] : "?";
}

void scx_cmd_free(struct scx_cmd *cmd)
{
	free(cmd->name);
	free(cmd->note);
	mdc_kvs_free(&cmd->kv);
	memset(cmd, 0, sizeof(*cmd));
}

bool scx_abbrev(const char *word, size_t len, const char *keyword, size_t min)
{
	size_t klen = strlen(keyword);

	/* shorter than MIN only when it is the whole keyword (scontrol's
	 * "hash_file" with MAX(len, 15) is matched in full only) */
	if (len > klen || (len < min && len < klen))
		return false;
	return strncasecmp(word, keyword, len) == 0;
}

/* xstrncasecmp(word, keyword, N) with a fixed N (scontrol's "hold", 4). */
static bool fixed_match(const char *word, size_t len, const char *keyword, size_t n)
{
	if (len < n && len != strlen(keyword))
		return false;
	return strncasecmp(word, keyword, len < n ? len : n) == 0;
}

/* One keyword of a chain.  FIXED: compared on exactly MIN characters. */
struct scx_word {
	const char *word;
	unsigned char min;
	bool fixed;
	int what;	/* what the chain entry means to us */
};

/* The first entry of CHAIN (N entries) that WORD[0..LEN) names, or NULL. */
static const struct scx_word *chain_find(const struct scx_word *chain, size_t n,
					 const char *word, size_t len)
{
	for (size_t i = 0; i < n; i++) {
		bool hit = chain[i].fixed ? fixed_match(word, len, chain[i].word, chain[i].min) :
			   scx_abbrev(word, len, chain[i].word, chain[i].min);

		if (hit)
			return &chain[i];
	}
	return NULL;
}
#define CHAIN_FIND(c, w, l) chain_find((c), sizeof(c) / sizeof((c)[0]), (w), (l))

/* ---------------------------------------------------------------- commands */

enum { T_OTHER, T_CREATE, T_SHOW, T_UPDATE, T_DELETE };

/* scontrol.c _process_command() */
static const struct scx_word top_chain[] = {
	{ "abort", 5, false, T_OTHER }, { "all", 2, false, T_OTHER },
	{ "cancel_reboot", 3, false, T_OTHER }, { "completing", 2, false, T_OTHER },
	{ "cluster", 2, false, T_OTHER }, { "create", 2, false, T_CREATE },
	{ "details", 1, false, T_OTHER }, { "errnumstr", 2, false, T_OTHER },
	{ "errnostr", 2, false, T_OTHER }, { "exit", 2, false, T_OTHER },
	{ "gethost", 7, false, T_OTHER }, { "hash_file", 15, false, T_OTHER },
	{ "hash", 9, false, T_OTHER }, { "help", 2, false, T_OTHER },
	{ "hide", 2, false, T_OTHER }, { "oneliner", 1, false, T_OTHER },
	{ "pidinfo", 3, false, T_OTHER }, { "ping", 3, false, T_OTHER },
	{ "\\q", 2, true, T_OTHER }, { "quiet", 4, false, T_OTHER },
	{ "quit", 4, false, T_OTHER }, { "reboot_nodes", 3, false, T_OTHER },
	{ "reconfigure", 3, false, T_OTHER }, { "requeue", 3, false, T_OTHER },
	{ "requeuehold", 11, true, T_OTHER }, { "hold", 4, true, T_OTHER },
	{ "holdu", 5, true, T_OTHER }, { "uhold", 5, true, T_OTHER },
	{ "release", 3, false, T_OTHER }, { "suspend", 2, false, T_OTHER },
	{ "resume", 3, false, T_OTHER }, { "top", 3, false, T_OTHER },
	{ "token", 3, false, T_OTHER }, { "wait_job", 2, false, T_OTHER },
	{ "setdebugflags", 9, false, T_OTHER }, { "fsdampeningfactor", 3, false, T_OTHER },
	{ "fairsharedampeningfactor", 3, false, T_OTHER }, { "setdebug", 2, false, T_OTHER },
	{ "schedloglevel", 3, false, T_OTHER }, { "show", 3, false, T_SHOW },
	{ "write", 5, false, T_OTHER }, { "takeover", 8, false, T_OTHER },
	{ "shutdown", 8, false, T_OTHER }, { "update", 1, false, T_UPDATE },
	{ "delete", 1, false, T_DELETE },
};

/* scontrol.c _show_it() */
static const struct scx_word show_chain[] = {
	{ "aliases", 1, false, SCX_PASS }, { "bbstat", 2, false, SCX_PASS },
	{ "dwstat", 2, false, SCX_PASS }, { "burstbuffer", 2, false, SCX_PASS },
	{ "assoc_mgr", 2, false, SCX_PASS }, { "cache", 2, false, SCX_PASS },
	{ "config", 1, false, SCX_SHOW_CONFIG }, { "daemons", 1, false, SCX_PASS },
	{ "Federations", 1, false, SCX_PASS }, { "FrontendName", 1, false, SCX_PASS },
	{ "hostnames", 5, false, SCX_PASS }, { "hostlist", 5, false, SCX_PASS },
	{ "hostlistsorted", 9, false, SCX_PASS }, { "jobs", 1, false, SCX_PASS },
	{ "jobid", 1, false, SCX_PASS }, { "licenses", 2, false, SCX_PASS },
	{ "nodes", 1, false, SCX_PASS }, { "partitions", 2, false, SCX_SHOW_PART },
	{ "partitionname", 2, false, SCX_SHOW_PART }, { "reservations", 1, false, SCX_PASS },
	{ "reservationname", 1, false, SCX_PASS }, { "slurmd", 2, false, SCX_PASS },
	{ "steps", 2, false, SCX_PASS }, { "topology", 1, false, SCX_PASS },
	/* ours, in full only: scontrol has no such entity */
	{ "nodeset", 7, false, SCX_SHOW_NODESET }, { "nodesets", 8, false, SCX_SHOW_NODESET },
};

/* The entities of update/create/delete (scontrol.c _update_it, _create_it,
 * _delete_it). */
enum { E_NONE, E_NODE, E_PART, E_JOB, E_STEP, E_FRONTEND, E_RES, E_DEBUG, E_SUSPEND };
/* What each entity word of _update_it() means; the words a release takes,
 * their abbreviations and order are its own (scx_rel_update). */
static const struct {
	const char *word;
	int what;
} update_entities[] = {
	{ "NodeName", E_NODE }, { "PartitionName", E_PART }, { "JobId", E_JOB },
	{ "JobNAME", E_JOB }, { "StepId", E_STEP }, { "FrontendName", E_FRONTEND },
	{ "ReservationName", E_RES }, { "SlurmctldDebug", E_DEBUG },
	{ "SuspendExcNodes", E_SUSPEND }, { "SuspendExcParts", E_SUSPEND },
	{ "SuspendExcStates", E_SUSPEND },
};
static const struct scx_word cd_entities[] = {
	{ "NodeName", 3, false, E_NODE }, { "PartitionName", 3, false, E_PART },
	{ "ReservationName", 3, false, E_RES },
};

/* ---------------------------------------------------------------- keys */

/* How mdc-scontrol handles a key of scontrol's partition or node update. */
enum scx_kind {
	K_NAME,		/* the entity's name */
	K_SET,		/* a slurm.conf setting: persisted and applied live */
	K_BOOL,		/* K_SET whose value scontrol reads as YES/NO prefixes */
	K_STATE,	/* partition State: UP/DOWN/DRAIN/INACTIVE prefixes */
	K_OVERSUB,	/* OverSubscribe/Shared: NO, EXCLUSIVE, YES[:N], FORCE[:N] */
	K_PRIORITY,	/* Priority=N: PriorityJobFactor=N and PriorityTier=N */
	K_RUNTIME,	/* node state and the like: the real scontrol only */
	K_NOCONF,	/* no slurm.conf key to persist it in: refused (CANON says why) */
};

/* What a keyword of scontrol's partition or node update means to us.
 * Which keywords a release takes, their shortest abbreviation and the
 * order scontrol tries them in are that release's own, generated from its
 * source (scargs_release_tab.c); a keyword missing here is one a newer
 * release added that has no slurm.conf key we persist (see key_of). */
struct scx_key {
	const char *word;	/* scontrol's spelling, as in its source */
	const char *canon;	/* slurm.conf spelling */
	enum scx_kind kind;
};

/* update_part.c scontrol_parse_part_options() */
static const struct scx_key part_keys[] = {
	{ "PartitionName", "PartitionName", K_NAME },
	{ "MaxTime", "MaxTime", K_SET },
	{ "CpuBind", "CpuBind", K_SET },
	{ "DefaultTime", "DefaultTime", K_SET },
	{ "MaxCPUsPerNode", "MaxCPUsPerNode", K_SET },
	{ "MaxCPUsPerSocket", "MaxCPUsPerSocket", K_SET },	/* 24.11 */
	{ "MaxNodes", "MaxNodes", K_SET },
	{ "MinNodes", "MinNodes", K_SET },
	{ "Default", "Default", K_BOOL },
	{ "DisableRootJobs", "DisableRootJobs", K_BOOL },
	{ "ExclusiveUser", "ExclusiveUser", K_BOOL },
	{ "ExclusiveTopo", "ExclusiveTopo", K_BOOL },		/* 24.11 */
	{ "Hidden", "Hidden", K_BOOL },
	{ "LLN", "LLN", K_BOOL },
	{ "RootOnly", "RootOnly", K_BOOL },
	{ "ReqResv", "ReqResv", K_BOOL },
	{ "OverSubscribe", "OverSubscribe", K_OVERSUB },
	{ "Shared", "OverSubscribe", K_OVERSUB },
	{ "OverTimeLimit", "OverTimeLimit", K_SET },
	{ "PowerDownOnIdle", "PowerDownOnIdle", K_BOOL },	/* 24.11 */
	{ "PreemptMode", "PreemptMode", K_SET },
	{ "Priority", "Priority", K_PRIORITY },
	{ "PriorityJobFactor", "PriorityJobFactor", K_SET },
	{ "PriorityTier", "PriorityTier", K_SET },
	{ "State", "State", K_STATE },
	{ "Nodes", "Nodes", K_SET },
	{ "AllowGroups", "AllowGroups", K_SET },
	{ "AllowAccounts", "AllowAccounts", K_SET },
	{ "AllowQos", "AllowQos", K_SET },
	{ "DenyAccounts", "DenyAccounts", K_SET },
	{ "DenyQos", "DenyQos", K_SET },
	{ "AllocNodes", "AllocNodes", K_SET },
	{ "Alternate", "Alternate", K_SET },
	{ "GraceTime", "GraceTime", K_SET },
	{ "DefMemPerCPU", "DefMemPerCPU", K_SET },
	{ "DefMemPerNode", "DefMemPerNode", K_SET },
	{ "MaxMemPerCPU", "MaxMemPerCPU", K_SET },
	{ "MaxMemPerNode", "MaxMemPerNode", K_SET },
	{ "QoS", "QOS", K_SET },
	{ "JobDefaults", "JobDefaults= has no slurm.conf key of that name: set DefCpuPerGPU= and DefMemPerGPU= (the defaults it holds) with mdcctl partition update", K_NOCONF },
	{ "TresBillingWeights", "TRESBillingWeights", K_SET },
};

/* update_node.c scontrol_update_node().  Weight, Features, Gres and
 * CpuBind are NodeName= settings the node_sets of a pool hold; the rest
 * (also any keyword a newer release adds) is the node's runtime state. */
static const struct scx_key node_keys[] = {
	{ "NodeName", "NodeName", K_NAME },
	{ "CpuBind", "CpuBind", K_SET },
	{ "Features", "Features", K_SET },
	{ "AvailableFeatures", "Features", K_SET },
	{ "Gres", "Gres", K_SET },
	{ "Weight", "Weight", K_SET },
};

enum { CH_PART, CH_NODE };
static const struct scx_rel_chain *const rel_chains[] = {
	[CH_PART] = scx_rel_part, [CH_NODE] = scx_rel_node,
};

static bool rel_word_match(const struct scx_rel_word *w, const char *word, size_t len)
{
	switch (w->how) {
	case SCX_REL_FIXED:
		return fixed_match(word, len, w->word, w->min);
	case SCX_REL_EXACT:
		return len == strlen(w->word) && !strncasecmp(word, w->word, len);
	default:
		return scx_abbrev(word, len, w->word, w->min);
	}
}

/* The meaning of scontrol's keyword WORD (exact spelling) in chain CH. */
static struct scx_key key_of(int ch, const char *word)
{
	const struct scx_key *t = ch == CH_PART ? part_keys : node_keys;
	size_t n = ch == CH_PART ? sizeof(part_keys) / sizeof(part_keys[0]) :
		   sizeof(node_keys) / sizeof(node_keys[0]);
	struct scx_key k = { word, word, ch == CH_PART ? K_NOCONF : K_RUNTIME };

	for (size_t i = 0; i < n; i++)
		if (!strcmp(t[i].word, word))
			return t[i];
	if (ch == CH_PART)
		k.canon = NULL;	/* read_pairs says: no slurm.conf key to persist */
	return k;
}

/* The keyword of release REL's chain CH that WORD[0..LEN) names, first
 * match winning as in scontrol; false when that scontrol takes none. */
static bool key_find(int ch, int rel, const char *word, size_t len, struct scx_key *out)
{
	const struct scx_rel_chain *c = &rel_chains[ch][rel];

	for (size_t i = 0; i < c->n; i++)
		if (rel_word_match(&c->w[i], word, len)) {
			*out = key_of(ch, c->w[i].word);
			return true;
		}
	return false;
}

/* The target release, asked of its resolver only when a word's reading
 * depends on it: the live scontrol --version runs for Po= (24.11's
 * PowerDownOnIdle, nothing in 22.05), not for MaxTime= or a typo. */
struct rel_ask {
	int (*fn)(void);
	int rel;	/* -1 until asked */
};

static int rel_get(struct rel_ask *a)
{
	if (a->rel < 0) {
		int r = a->fn ? a->fn() : -1;

		a->rel = r >= 0 && r < SC_NREL ? r : sc_rel_build();
	}
	return a->rel;
}

/* Does every release read WORD[0..LEN) alike in chain CH (then *FOUND
 * says whether as a key, *OUT which)? */
static bool key_alike(int ch, const char *word, size_t len, struct scx_key *out, bool *found)
{
	for (int r = 0; r < SC_NREL; r++) {
		struct scx_key k = { NULL, NULL, K_NAME };
		bool f = key_find(ch, r, word, len, &k);

		if (!r) {
			*found = f;
			*out = k;
		} else if (f != *found || (f && strcmp(k.word, out->word))) {
			return false;
		}
	}
	return true;
}

/* Value words, each matched on MAX(len, 1) like scontrol does. */
static const char *const bool_words[] = { "NO", "YES", NULL };
static const char *const state_words[] = { "INACTIVE", "DOWN", "UP", "DRAIN", NULL };
static const char *const oversub_words[] = { "NO", "EXCLUSIVE", "YES", "FORCE", NULL };

static const char *value_word(const char *const *words, const char *val, size_t len)
{
	for (size_t i = 0; words[i]; i++)
		if (scx_abbrev(val, len, words[i], 1))
			return words[i];
	return NULL;
}

/* ---------------------------------------------------------------- parsing */

/* scontrol's quoting as the shell leaves it: "..." or '...' around a value. */
static char *unquote(const char *v)
{
	size_t n = strlen(v);

	if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0])
		return strndup(v + 1, n - 2);
	return strdup(v);
}

/* Set KEY to VALUE in KV: a later pair replaces an earlier one, as
 * scontrol's last assignment to a message field wins. */
static int kv_set(struct mdc_kvs *kv, const char *key, const char *value)
{
	for (size_t i = 0; i < kv->n; i++)
		if (!strcmp(kv->v[i].key, key)) {
			char *v = strdup(value);

			if (!v)
				return MDC_ERR_NOMEM;
			free(kv->v[i].value);
			kv->v[i].value = v;
			return 0;
		}
	return mdc_kvs_add(kv, key, value);
}

/* The canonical value of a K_BOOL/K_STATE/K_OVERSUB key into *OUT. */
static int canon_value(const struct scx_key *k, const char *val, char **out,
		       struct mdc_ctx *ctx)
{
	const char *colon = k->kind == K_OVERSUB ? strchr(val, ':') : NULL;
	size_t len = colon ? (size_t) (colon - val) : strlen(val);
	const char *const *words = k->kind == K_BOOL ? bool_words :
				   k->kind == K_STATE ? state_words : oversub_words;
	const char *w = value_word(words, val, len);
	static const char *const accept[] = {
		[K_BOOL] = "YES and NO", [K_STATE] = "UP, DOWN, DRAIN and INACTIVE",
		[K_OVERSUB] = "NO, EXCLUSIVE, YES[:N] and FORCE[:N]",
	};

	if (!w)
		return mdc_fail(ctx, MDC_ERR_INVAL, "%s='%s': scontrol accepts %s (or their first letters)",
				k->canon, val, accept[k->kind]);
	/* scontrol drops a count after NO or EXCLUSIVE */
	if (colon && (!strcmp(w, "YES") || !strcmp(w, "FORCE"))) {
		if (asprintf(out, "%s%s", w, colon) < 0)
			*out = NULL;
	} else {
		*out = strdup(w);
	}
	return *out ? 0 : mdc_nomem(ctx);
}

/* Refuse KEY (LEN characters of WORD), which release REL's scontrol does
 * not take in chain CH, saying what the releases that do take it read;
 * REL -1: no release's scontrol takes it (the build's gives the hints). */
static int unknown_key(int ch, int rel, const char *what, const char *word, size_t len,
		       const char *value, unsigned scope, struct mdc_ctx *ctx)
{
	int target = rel;

	char *key = strndup(word, len);
	const char *hint = key ? sc_opt_suggest(key, scope) : NULL;
	struct scx_key k, other;
	char elsewhere[200] = "";
	size_t o = 0;
	int och = ch == CH_PART ? CH_NODE : CH_PART;

	if (!key)
		return mdc_nomem(ctx);
	if (rel < 0)
		rel = sc_rel_build();
	/* only a key this scontrol itself takes is a useful hint */
	if (hint && !key_find(ch, rel, hint, strlen(hint), &k))
		hint = NULL;
	/* a key of the other entity: say where it belongs (State, CpuBind:
	 * keys of both, only too short here) */
	if (key_find(och, rel, word, len, &other) && other.kind != K_NAME &&
	    other.kind != K_NOCONF && other.canon &&
	    !key_find(ch, rel, other.canon, strlen(other.canon), &k)) {
		mdc_fail(ctx, MDC_ERR_INVAL,
			 "%s: unknown key '%s': %s is a %s key: mdc-scontrol update %s=%s %s=%s",
			 what, key, other.canon, ch == CH_PART ? "node" : "partition",
			 ch == CH_PART ? "NodeName" : "PartitionName",
			 ch == CH_PART ? "NODES" : "PARTITION", other.canon, value);
		free(key);
		return MDC_ERR_INVAL;
	}
	/* an abbreviation or key another release's scontrol takes: say
	 * which, rather than guess at a misspelling */
	for (int r = 0; r < SC_NREL; r++) {
		int n;

		if (target < 0 || r == rel || !key_find(ch, r, word, len, &k))
			continue;
		n = snprintf(elsewhere + o, sizeof(elsewhere) - o, o ? ", %s as %s" :
			     " (scontrol %s reads it as %s", sc_rel_name(r), k.word);
		if (n < 0 || (size_t) n >= sizeof(elsewhere) - o)
			break;
		o += (size_t) n;
	}
	if (o)
		mdc_fail(ctx, MDC_ERR_INVAL, "%s: unknown key '%s': scontrol %s does not update it%s)",
			 what, key, sc_rel_name(rel), elsewhere);
	else
		mdc_fail(ctx, MDC_ERR_INVAL,
			 "%s: unknown key '%s'%s%s%s: scontrol does not update it (see scontrol(1))",
			 what, key, hint ? " (did you mean '" : "", hint ? hint : "", hint ? "'?)" : "");
	free(key);
	return MDC_ERR_INVAL;
}

/* Read the Key=Value words of a partition or node command into CMD (name
 * and canonical pairs) as release REL's scontrol reads them (chain CH).
 * WHAT names the command in messages.  *RUNTIME and *SETTINGS count the
 * runtime-only and the persistent keys. */
static int read_pairs(int argc, char **argv, int ch, struct rel_ask *ask, unsigned scope, const char *what,
		      struct scx_cmd *cmd, size_t *runtime, size_t *settings, struct mdc_ctx *ctx)
{
	*runtime = *settings = 0;
	for (int i = 0; i < argc; i++) {
		const char *eq = strchr(argv[i], '=');
		struct scx_key key;
		const struct scx_key *k = &key;
		char *val = NULL;
		int rc = 0;

		if (!eq)
			return mdc_fail(ctx, MDC_ERR_USAGE,
					"%s: '%s' is not a Key=Value pair (scontrol rejects it too: Invalid input)",
					what, argv[i]);
		size_t len = (size_t) (eq - argv[i]);
		bool found;

		if (!key_alike(ch, argv[i], len, &key, &found))
			found = key_find(ch, rel_get(ask), argv[i], len, &key);
		if (!found)
			return unknown_key(ch, ask->rel, what, argv[i], len, eq + 1, scope, ctx);
		if (!(val = unquote(eq + 1)))
			return mdc_nomem(ctx);
		switch (k->kind) {
		case K_NAME:
			free(cmd->name);
			cmd->name = val;
			val = NULL;
			break;
		case K_BOOL:
		case K_STATE:
		case K_OVERSUB: {
			char *canon = NULL;

			if (!(rc = canon_value(k, val, &canon, ctx)))
				rc = kv_set(&cmd->kv, k->canon, canon);
			free(canon);
			++*settings;
			break;
		}
		case K_PRIORITY:
			/* scontrol sets both fields from Priority= */
			if (!(rc = kv_set(&cmd->kv, "PriorityJobFactor", val)))
				rc = kv_set(&cmd->kv, "PriorityTier", val);
			++*settings;
			break;
		case K_SET:
			rc = kv_set(&cmd->kv, k->canon, val);
			++*settings;
			break;
		case K_RUNTIME:
			rc = kv_set(&cmd->kv, k->canon, val);
			++*runtime;
			break;
		case K_NOCONF:
			if (k->canon)
				rc = mdc_fail(ctx, MDC_ERR_REFUSED, "%s: %s", what, k->canon);
			else
				rc = mdc_fail(ctx, MDC_ERR_REFUSED,
					      "%s: %s= (scontrol %s) has no slurm.conf partition key that mdc-scontrol persists: use scontrol for a runtime-only change",
					      what, k->word, sc_rel_name(rel_get(ask)));
			break;
		}
		free(val);
		if (rc == MDC_ERR_NOMEM)
			return mdc_nomem(ctx);
		if (rc)
			return rc;
	}
	return 0;
}

/* The word of release REL's update command that names WORD[0..LEN)'s
 * entity, or NULL (a trailing + or - is no part of the tag where that
 * release reads Key+=V). */
static const char *update_word(int rel, const char *word, size_t len, bool has_eq)
{
	const struct scx_rel_chain *c = &scx_rel_update[rel];

	if (has_eq && len && scx_rel_update_modes[rel] && (word[len - 1] == '+' || word[len - 1] == '-'))
		len--;
	for (size_t i = 0; i < c->n; i++)
		if (rel_word_match(&c->w[i], word, len))
			return c->w[i].word;
	return NULL;
}

/* Which entity an update names, as the target release's scontrol decides
 * (asked only when the releases read a word differently).  *AT: the
 * index of the word that names it. */
static int update_entity(int argc, char **argv, struct rel_ask *ask, int *at)
{
	int seen[E_SUSPEND + 1];
	static const int order[] = { E_JOB, E_STEP, E_RES, E_NODE, E_FRONTEND, E_PART, E_DEBUG,
				     E_SUSPEND };

	for (size_t e = 0; e <= E_SUSPEND; e++)
		seen[e] = -1;
	for (int i = 0; i < argc; i++) {
		const char *eq = strchr(argv[i], '=');
		size_t len = eq ? (size_t) (eq - argv[i]) : strlen(argv[i]);
		const char *w = update_word(0, argv[i], len, eq);

		for (int r = 1; r < SC_NREL; r++) {
			const char *o = update_word(r, argv[i], len, eq);

			if (!o != !w || (o && strcmp(o, w))) {
				w = update_word(rel_get(ask), argv[i], len, eq);
				break;
			}
		}
		for (size_t e = 0; w && e < sizeof(update_entities) / sizeof(update_entities[0]); e++)
			if (!strcmp(update_entities[e].word, w) && seen[update_entities[e].what] < 0)
				seen[update_entities[e].what] = i;
		if (!eq)
			i++;	/* "Key Value": scontrol skips the value */
	}
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (seen[order[i]] >= 0) {
			*at = seen[order[i]];
			return order[i];
		}
	return E_NONE;
}

/* update SuspendExcNodes=... (24.11 on): that release's scontrol changes
 * the live slurmctld only, which the next regeneration undoes. */
static int suspend_exc(const char *arg, int rel, struct mdc_ctx *ctx)
{
	const char *eq = strchr(arg, '=');
	size_t len = eq ? (size_t) (eq - arg) : strlen(arg);
	const char *w = update_word(rel, arg, len, eq);

	return mdc_fail(ctx, MDC_ERR_REFUSED,
			"update %s: scontrol %s changes %s on the live slurmctld only, which the next "
			"regeneration of slurm.conf undoes: set it with 'mdcctl config set %s=VALUE' "
			"(nothing was sent)", arg, sc_rel_name(rel), w ? w : arg, w ? w : arg);
}

static int create_entity(int argc, char **argv)
{
	for (int i = 0; i < argc; i++) {
		const char *eq = strchr(argv[i], '=');
		size_t len = eq ? (size_t) (eq - argv[i]) : strlen(argv[i]);
		const struct scx_word *w = CHAIN_FIND(cd_entities, argv[i], len);

		if (w)
			return w->what;
	}
	return E_NONE;
}

static int parse_part(int argc, char **argv, bool create, struct rel_ask *ask, struct scx_cmd *cmd,
		      struct mdc_ctx *ctx)
{
	const char *what = create ? "create partition" : "update partition";
	size_t runtime, settings;
	int rc;

	if ((rc = read_pairs(argc, argv, CH_PART, ask, SC_SCOPE_PARTITION, what, cmd, &runtime,
			     &settings, ctx)))
		return rc;
	if (!cmd->name || !*cmd->name)
		return mdc_fail(ctx, MDC_ERR_USAGE, "%s: give PartitionName=NAME", what);
	if (create && !strcasecmp(cmd->name, "default"))
		return mdc_fail(ctx, MDC_ERR_USAGE, "%s: PartitionName cannot be DEFAULT", what);
	if (!create && !settings)
		return mdc_fail(ctx, MDC_ERR_USAGE,
				"update PartitionName=%s: no changes specified: give at least one Key=Value",
				cmd->name);
	cmd->verb = create ? SCX_CREATE_PART : SCX_UPDATE_PART;
	return 0;
}

static int parse_nodes(int argc, char **argv, struct rel_ask *ask, struct scx_cmd *cmd,
		       struct mdc_ctx *ctx)
{
	size_t runtime, settings;
	int rc;

	if ((rc = read_pairs(argc, argv, CH_NODE, ask, SC_SCOPE_NODE, "update nodes", cmd, &runtime,
			     &settings, ctx)))
		return rc;
	if (!cmd->name || !*cmd->name)
		return mdc_fail(ctx, MDC_ERR_USAGE, "update nodes: give NodeName=NODES");
	if (runtime && settings)
		return mdc_fail(ctx, MDC_ERR_USAGE,
				"update NodeName=%s: Weight, Features, Gres and CpuBind are persisted, the other keys are runtime state; run them as two commands",
				cmd->name);
	if (settings) {
		cmd->verb = SCX_UPDATE_NODES;
		return 0;
	}
	/* State=DRAIN, Reason=... : runtime state, the real scontrol's */
	mdc_kvs_free(&cmd->kv);
	if (asprintf(&cmd->note, "NodeName=%s: node state (State, Reason, ActiveFeatures, Comment, Extra, NodeAddr) is runtime: slurmctld keeps it, the managed spec does not hold it",
		     cmd->name) < 0) {
		cmd->note = NULL;
		return mdc_nomem(ctx);
	}
	return 0;
}

static int parse_delete(int argc, char **argv, struct scx_cmd *cmd, struct mdc_ctx *ctx)
{
	const char *tag = argc > 0 ? argv[0] : "", *val, *eq;
	size_t len;
	const struct scx_word *w;

	/* scontrol: "delete ENTITY=ID" or "delete ENTITY ID"; anything else
	 * is its error, which it reports itself */
	if (argc == 1 && (eq = strchr(tag, '='))) {
		len = (size_t) (eq - tag);
		val = eq + 1;
	} else if (argc == 2) {
		len = strlen(tag);
		val = argv[1];
	} else {
		return 0;
	}
	w = CHAIN_FIND(cd_entities, tag, len);
	if (!w || w->what != E_PART)
		return 0;
	if (!*val)
		return mdc_fail(ctx, MDC_ERR_USAGE, "delete partition: the partition name is empty");
	if (!(cmd->name = unquote(val)))
		return mdc_nomem(ctx);
	cmd->verb = SCX_DELETE_PART;
	return 0;
}

static int parse_show(int argc, char **argv, struct scx_cmd *cmd, struct mdc_ctx *ctx)
{
	const char *tag, *eq, *val = NULL;
	const struct scx_word *w;
	size_t len;

	if (argc < 1)
		return 0;
	tag = argv[0];
	eq = strchr(tag, '=');
	len = eq ? (size_t) (eq - tag) : strlen(tag);
	/* scontrol: "show ENTITY=X" or "show ENTITY X"; more words than
	 * that and it shows everything (it ignores them) */
	if (eq)
		val = eq + 1;
	else if (argc == 2)
		val = argv[1];
	if (!(w = CHAIN_FIND(show_chain, tag, len)) || w->what == SCX_PASS)
		return 0;
	if (w->what == SCX_SHOW_CONFIG && val)
		return 0;	/* "show config KEY": the real scontrol's filter */
	if (val && *val && !(cmd->name = strdup(val)))
		return mdc_nomem(ctx);
	cmd->verb = (enum scx_verb) w->what;
	return 0;
}

/* Dynamic nodes (scontrol create/delete NodeName=) are slurmctld's
 * runtime state: the managed spec has node pools, not nodes. */
static int runtime_note(struct scx_cmd *cmd, const char *what)
{
	if (asprintf(&cmd->note, "%s: a dynamic node is runtime state that the managed spec does not hold; node pools are changed with mdcctl nodepool",
		     what) < 0) {
		cmd->note = NULL;
		return MDC_ERR_NOMEM;
	}
	return 0;
}

/* An update naming no entity but a slurm.conf key (PreemptType=...):
 * scontrol answers "No valid entity"; say where such a key is set. */
static int cluster_key(int argc, char **argv, struct mdc_ctx *ctx)
{
	for (int i = 0; i < argc; i++) {
		const char *eq = strchr(argv[i], '=');
		char *word = eq ? strndup(argv[i], (size_t) (eq - argv[i])) : NULL;
		const struct sc_option *opt = word ? sc_opt_find(word, SC_SCOPE_CLUSTER) : NULL;

		free(word);
		if (opt && !(opt->flags & SC_OPT_RECORD))
			return mdc_fail(ctx, MDC_ERR_REFUSED,
					"update %s: %s is a cluster-wide slurm.conf setting, which scontrol "
					"cannot update: set it with 'mdcctl config set %s=%s' (nothing was sent)",
					argv[i], opt->name, opt->name, eq + 1);
	}
	return 0;
}

int scx_parse(int argc, char **argv, int (*release)(void), struct scx_cmd *cmd,
	      struct mdc_ctx *ctx)
{
	const struct scx_word *top;
	struct rel_ask ask = { release, -1 };
	int rc = 0, at = 0;

	memset(cmd, 0, sizeof(*cmd));
	if (argc < 1 || !(top = CHAIN_FIND(top_chain, argv[0], strlen(argv[0]))))
		return 0;
	argc--;
	argv++;
	switch (top->what) {
	case T_UPDATE:
		switch (update_entity(argc, argv, &ask, &at)) {
		case E_PART:
			rc = parse_part(argc, argv, false, &ask, cmd, ctx);
			break;
		case E_NODE:
			rc = parse_nodes(argc, argv, &ask, cmd, ctx);
			break;
		case E_NONE:
			rc = cluster_key(argc, argv, ctx);
			break;
		case E_SUSPEND:
			rc = suspend_exc(argv[at], rel_get(&ask), ctx);
			break;
		default:
			break;	/* jobs, steps, reservations...: the real scontrol */
		}
		break;
	case T_CREATE:
		switch (create_entity(argc, argv)) {
		case E_PART:
			rc = parse_part(argc, argv, true, &ask, cmd, ctx);
			break;
		case E_NODE:
			rc = runtime_note(cmd, "create NodeName");
			break;
		default:
			break;
		}
		break;
	case T_DELETE:
		if (!(rc = parse_delete(argc, argv, cmd, ctx)) && cmd->verb == SCX_PASS && argc >= 1) {
			const char *eq = strchr(argv[0], '=');
			size_t len = eq ? (size_t) (eq - argv[0]) : strlen(argv[0]);
			const struct scx_word *w = CHAIN_FIND(cd_entities, argv[0], len);

			if (w && w->what == E_NODE)
				rc = runtime_note(cmd, "delete NodeName");
		}
		break;
	case T_SHOW:
		rc = parse_show(argc, argv, cmd, ctx);
		break;
	default:
		break;
	}
	if (rc) {
		mdc_kvs_free(&cmd->kv);
		cmd->verb = SCX_PASS;
	}
	return rc;
}
