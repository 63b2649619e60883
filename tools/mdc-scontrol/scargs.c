/* scargs.c - classify scontrol command words (see scargs.h).  Pure: no
 * I/O, so it is unit-tested alone (test_scontrol.c).
 *
 * Every table below is a copy, in order, of an if-chain of scontrol 22.05:
 * scontrol tries its keywords one after the other and the first match
 * wins, so "d" is "details" and "del" is "delete", "D=" is DisableRootJobs
 * and "MaxT=" is MaxTime.  Keep the order when editing. */
#define _GNU_SOURCE	/* asprintf */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "sc_options.h"
#include "scargs.h"

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
enum { E_NONE, E_NODE, E_PART, E_JOB, E_STEP, E_FRONTEND, E_RES, E_DEBUG };
static const struct scx_word update_entities[] = {
	{ "NodeName", 3, false, E_NODE }, { "PartitionName", 3, false, E_PART },
	{ "JobId", 3, false, E_JOB }, { "JobNAME", 3, false, E_JOB },
	{ "StepId", 4, false, E_STEP }, { "FrontendName", 2, false, E_FRONTEND },
	{ "ReservationName", 3, false, E_RES }, { "SlurmctldDebug", 2, false, E_DEBUG },
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

struct scx_key {
	const char *word;
	unsigned char min;
	const char *canon;	/* slurm.conf spelling */
	enum scx_kind kind;
};

/* update_part.c scontrol_parse_part_options() */
static const struct scx_key part_keys[] = {
	{ "PartitionName", 2, "PartitionName", K_NAME },
	{ "MaxTime", 4, "MaxTime", K_SET },
	{ "CpuBind", 7, "CpuBind", K_SET },
	{ "DefaultTime", 8, "DefaultTime", K_SET },
	{ "MaxCPUsPerNode", 4, "MaxCPUsPerNode", K_SET },
	{ "MaxNodes", 4, "MaxNodes", K_SET },
	{ "MinNodes", 2, "MinNodes", K_SET },
	{ "Default", 7, "Default", K_BOOL },
	{ "DisableRootJobs", 1, "DisableRootJobs", K_BOOL },
	{ "ExclusiveUser", 1, "ExclusiveUser", K_BOOL },
	{ "Hidden", 1, "Hidden", K_BOOL },
	{ "LLN", 1, "LLN", K_BOOL },
	{ "RootOnly", 3, "RootOnly", K_BOOL },
	{ "ReqResv", 3, "ReqResv", K_BOOL },
	{ "OverSubscribe", 5, "OverSubscribe", K_OVERSUB },
	{ "Shared", 2, "OverSubscribe", K_OVERSUB },
	{ "OverTimeLimit", 5, "OverTimeLimit", K_SET },
	{ "PreemptMode", 3, "PreemptMode", K_SET },
	{ "Priority", 3, "Priority", K_PRIORITY },
	{ "PriorityJobFactor", 3, "PriorityJobFactor", K_SET },
	{ "PriorityTier", 3, "PriorityTier", K_SET },
	{ "State", 2, "State", K_STATE },
	{ "Nodes", 1, "Nodes", K_SET },
	{ "AllowGroups", 6, "AllowGroups", K_SET },
	{ "AllowAccounts", 6, "AllowAccounts", K_SET },
	{ "AllowQos", 6, "AllowQos", K_SET },
	{ "DenyAccounts", 5, "DenyAccounts", K_SET },
	{ "DenyQos", 5, "DenyQos", K_SET },
	{ "AllocNodes", 6, "AllocNodes", K_SET },
	{ "Alternate", 3, "Alternate", K_SET },
	{ "GraceTime", 5, "GraceTime", K_SET },
	{ "DefMemPerCPU", 10, "DefMemPerCPU", K_SET },
	{ "DefMemPerNode", 10, "DefMemPerNode", K_SET },
	{ "MaxMemPerCPU", 10, "MaxMemPerCPU", K_SET },
	{ "MaxMemPerNode", 10, "MaxMemPerNode", K_SET },
	{ "QoS", 3, "QOS", K_SET },
	{ "JobDefaults", 4, "JobDefaults= has no slurm.conf key of that name: set DefCpuPerGPU= and DefMemPerGPU= (the defaults it holds) with mdcctl partition update", K_NOCONF },
	{ "TresBillingWeights", 1, "TRESBillingWeights", K_SET },
};

/* update_node.c scontrol_update_node().  Weight, Features, Gres and
 * CpuBind are NodeName= settings the node_sets of a pool hold; the rest
 * is the node's runtime state. */
static const struct scx_key node_keys[] = {
	{ "NodeAddr", 5, "NodeAddr", K_RUNTIME },
	{ "NodeHostName", 5, "NodeHostName", K_RUNTIME },
	{ "NodeName", 1, "NodeName", K_NAME },
	{ "ActiveFeatures", 3, "ActiveFeatures", K_RUNTIME },
	{ "CpuBind", 7, "CpuBind", K_SET },
	{ "Extra", 1, "Extra", K_RUNTIME },
	{ "Features", 1, "Features", K_SET },
	{ "AvailableFeatures", 3, "Features", K_SET },
	{ "Gres", 1, "Gres", K_SET },
	{ "Weight", 1, "Weight", K_SET },
	{ "Comment", 2, "Comment", K_RUNTIME },
	{ "Reason", 1, "Reason", K_RUNTIME },
	{ "State", 1, "State", K_RUNTIME },
};

static const struct scx_key *key_find(const struct scx_key *t, size_t n, const char *word,
				      size_t len)
{
	for (size_t i = 0; i < n; i++)
		if (scx_abbrev(word, len, t[i].word, t[i].min))
			return &t[i];
	return NULL;
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

/* Read the Key=Value words of a partition or node command into CMD (name
 * and canonical pairs).  WHAT names the command in messages.  *RUNTIME and
 * *SETTINGS count the runtime-only and the persistent keys. */
static int read_pairs(int argc, char **argv, const struct scx_key *table, size_t ntable,
		      unsigned scope, const char *what, struct scx_cmd *cmd, size_t *runtime, size_t *settings,
		      struct mdc_ctx *ctx)
{
	*runtime = *settings = 0;
	for (int i = 0; i < argc; i++) {
		const char *eq = strchr(argv[i], '=');
		const struct scx_key *k;
		char *val = NULL;
		int rc = 0;

		if (!eq)
			return mdc_fail(ctx, MDC_ERR_USAGE,
					"%s: '%s' is not a Key=Value pair (scontrol rejects it too: Invalid input)",
					what, argv[i]);
		if (!(k = key_find(table, ntable, argv[i], (size_t) (eq - argv[i])))) {
			char *word = strndup(argv[i], (size_t) (eq - argv[i]));
			const char *hint = word ? sc_opt_suggest(word, scope) : NULL;

			const struct scx_key *other = NULL;

			/* only a key scontrol itself takes is a useful hint */
			if (hint && !key_find(table, ntable, hint, strlen(hint)))
				hint = NULL;
			/* a key of the other entity: say where it belongs */
			if (table == part_keys)
				other = key_find(node_keys, sizeof(node_keys) / sizeof(node_keys[0]),
						 argv[i], (size_t) (eq - argv[i]));
			else
				other = key_find(part_keys, sizeof(part_keys) / sizeof(part_keys[0]),
						 argv[i], (size_t) (eq - argv[i]));
			/* (State, CpuBind: keys of both, only too short here) */
			if (other && other->kind != K_NAME && other->kind != K_NOCONF &&
			    !key_find(table, ntable, other->canon, strlen(other->canon))) {
				mdc_fail(ctx, MDC_ERR_INVAL,
					 "%s: unknown key '%s': %s is a %s key: mdc-scontrol update %s=%s %s=%s",
					 what, word ? word : argv[i], other->canon,
					 table == part_keys ? "node" : "partition",
					 table == part_keys ? "NodeName" : "PartitionName",
					 table == part_keys ? "NODES" : "PARTITION", other->canon, eq + 1);
				free(word);
				return MDC_ERR_INVAL;
			}
			mdc_fail(ctx, MDC_ERR_INVAL,
				 "%s: unknown key '%s'%s%s%s: scontrol does not update it (see scontrol(1))",
				 what, word ? word : argv[i], hint ? " (did you mean '" : "",
				 hint ? hint : "", hint ? "'?)" : "");
			free(word);
			return MDC_ERR_INVAL;
		}
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
			rc = mdc_fail(ctx, MDC_ERR_REFUSED, "%s: %s", what, k->canon);
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

/* Which entity an update/create names, as scontrol decides (see above). */
static int update_entity(int argc, char **argv)
{
	bool seen[E_DEBUG + 1] = { false };
	static const int order[] = { E_JOB, E_STEP, E_RES, E_NODE, E_FRONTEND, E_PART, E_DEBUG };

	for (int i = 0; i < argc; i++) {
		const char *eq = strchr(argv[i], '=');
		size_t len = eq ? (size_t) (eq - argv[i]) : strlen(argv[i]);
		const struct scx_word *w = CHAIN_FIND(update_entities, argv[i], len);

		if (w)
			seen[w->what] = true;
		if (!eq)
			i++;	/* "Key Value": scontrol skips the value */
	}
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (seen[order[i]])
			return order[i];
	return E_NONE;
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

static int parse_part(int argc, char **argv, bool create, struct scx_cmd *cmd,
		      struct mdc_ctx *ctx)
{
	const char *what = create ? "create partition" : "update partition";
	size_t runtime, settings;
	int rc;

	if ((rc = read_pairs(argc, argv, part_keys, sizeof(part_keys) / sizeof(part_keys[0]),
			     SC_SCOPE_PARTITION, what, cmd, &runtime, &settings, ctx)))
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

static int parse_nodes(int argc, char **argv, struct scx_cmd *cmd, struct mdc_ctx *ctx)
{
	size_t runtime, settings;
	int rc;

	if ((rc = read_pairs(argc, argv, node_keys, sizeof(node_keys) / sizeof(node_keys[0]),
			     SC_SCOPE_NODE, "update nodes", cmd, &runtime, &settings, ctx)))
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

int scx_parse(int argc, char **argv, struct scx_cmd *cmd, struct mdc_ctx *ctx)
{
	const struct scx_word *top;
	int rc = 0;

	memset(cmd, 0, sizeof(*cmd));
	if (argc < 1 || !(top = CHAIN_FIND(top_chain, argv[0], strlen(argv[0]))))
		return 0;
	argc--;
	argv++;
	switch (top->what) {
	case T_UPDATE:
		switch (update_entity(argc, argv)) {
		case E_PART:
			rc = parse_part(argc, argv, false, cmd, ctx);
			break;
		case E_NODE:
			rc = parse_nodes(argc, argv, cmd, ctx);
			break;
		case E_NONE:
			rc = cluster_key(argc, argv, ctx);
			break;
		default:
			break;	/* jobs, steps, reservations...: the real scontrol */
		}
		break;
	case T_CREATE:
		switch (create_entity(argc, argv)) {
		case E_PART:
			rc = parse_part(argc, argv, true, cmd, ctx);
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
