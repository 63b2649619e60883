/* scargs.c - classify scontrol command words (see scargs.h).  Pure: no
 * I/O, so it is unit-tested alone (test_scargs.c). */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include <strings.h>
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
	mdc_kvs_free(&cmd->kv);
	memset(cmd, 0, sizeof(*cmd));
}

/* scontrol's quoting: a value wrapped in "..." or '...' loses the quotes. */
static char *unquote(const char *v)
{
	size_t n = strlen(v);

	if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0])
		return strndup(v + 1, n - 2);
	return strdup(v);
}

/* Split ARGV into pairs; a word without '=' is a usage error.  Keys are
 * copied as typed (they are compared with mdc_key_eq later). */
static int split_pairs(int argc, char **argv, struct mdc_kvs *kv, struct mdc_ctx *ctx)
{
	for (int i = 0; i < argc; i++) {
		const char *eq = strchr(argv[i], '=');
		char *key, *val;
		int rc;

		if (!eq || eq == argv[i])
			return mdc_fail(ctx, MDC_ERR_USAGE,
					"'%s' is not a Key=Value pair (scontrol syntax)", argv[i]);
		key = strndup(argv[i], (size_t) (eq - argv[i]));
		val = unquote(eq + 1);
		rc = (key && val) ? mdc_kvs_add(kv, key, val) : MDC_ERR_NOMEM;
		free(key);
		free(val);
		if (rc)
			return mdc_fail(ctx, rc, "out of memory");
	}
	return 0;
}

/* Move the pair named KEY (any of the spellings in KEYS) out of KV into
 * *NAME.  Returns true when found. */
static bool take(struct mdc_kvs *kv, const char *const *keys, char **name)
{
	for (size_t i = 0; i < kv->n; i++)
		for (size_t k = 0; keys[k]; k++)
			if (mdc_key_eq(kv->v[i].key, keys[k])) {
				*name = kv->v[i].value;
				free(kv->v[i].key);
				memmove(&kv->v[i], &kv->v[i + 1], (kv->n - i - 1) * sizeof(kv->v[0]));
				kv->n--;
				return true;
			}
	return false;
}

static const char *const part_keys[] = { "PartitionName", NULL };
static const char *const node_keys[] = { "NodeName", NULL };
/* node settings persisted through node_sets; anything else on a node
 * (State=, Reason=, ...) is runtime and goes to the real scontrol */
static const char *const node_persist_keys[] = {
	"Weight", "Features", "AvailableFeatures", "Gres", NULL,
};

static bool is_node_persist(const char *key)
{
	for (size_t i = 0; node_persist_keys[i]; i++)
		if (mdc_key_eq(key, node_persist_keys[i]))
			return true;
	return false;
}

static int parse_update(int argc, char **argv, struct scx_cmd *cmd, struct mdc_ctx *ctx)
{
	size_t persist = 0;
	int rc;

	/* only PartitionName/NodeName updates are ours: JobId=, ReservationName=... pass */
	if ((rc = split_pairs(argc, argv, &cmd->kv, ctx))) {
		mdc_kvs_free(&cmd->kv);
		mdc_ctx_clear(ctx);
		return 0;
	}
	if (take(&cmd->kv, part_keys, &cmd->name)) {
		if (!cmd->kv.n)
			return mdc_fail(ctx, MDC_ERR_USAGE,
					"update PartitionName='%s': give at least one Key=Value", cmd->name);
		cmd->verb = SCX_UPDATE_PART;
		return 0;
	}
	if (!take(&cmd->kv, node_keys, &cmd->name))
		return 0;
	for (size_t i = 0; i < cmd->kv.n; i++)
		persist += is_node_persist(cmd->kv.v[i].key);
	if (persist == 0)
		return 0;	/* State=DRAIN and friends: runtime, real scontrol */
	if (persist != cmd->kv.n)
		return mdc_fail(ctx, MDC_ERR_USAGE,
				"update NodeName='%s': Weight, Features and Gres are persisted, other keys are runtime; run them as two commands",
				cmd->name);
	cmd->verb = SCX_UPDATE_NODES;
	return 0;
}

int scx_parse(int argc, char **argv, struct scx_cmd *cmd, struct mdc_ctx *ctx)
{
	const char *verb;
	int rc = 0;

	memset(cmd, 0, sizeof(*cmd));
	if (argc < 1)
		return 0;
	verb = argv[0];
	argc--;
	argv++;
	if (!strcasecmp(verb, "update")) {
		rc = parse_update(argc, argv, cmd, ctx);
	} else if (!strcasecmp(verb, "create") || !strcasecmp(verb, "delete")) {
		bool create = !strcasecmp(verb, "create");

		/* scontrol also takes "delete partition X"/"create partition ..." */
		if (argc >= 1 && !strcasecmp(argv[0], "partition")) {
			if (!create && argc == 2 && !strchr(argv[1], '=')) {
				if (!(cmd->name = strdup(argv[1])))
					return mdc_fail(ctx, MDC_ERR_NOMEM, "out of memory");
				cmd->verb = SCX_DELETE_PART;
				return 0;
			}
			argc--;
			argv++;
		}
		if (split_pairs(argc, argv, &cmd->kv, ctx)) {
			mdc_kvs_free(&cmd->kv);	/* reservations etc.: real scontrol */
			mdc_ctx_clear(ctx);
			return 0;
		}
		if (!take(&cmd->kv, part_keys, &cmd->name))
			return 0;
		if (!*cmd->name)
			return mdc_fail(ctx, MDC_ERR_USAGE, "%s: PartitionName is empty", verb);
		if (create) {
			cmd->verb = SCX_CREATE_PART;
		} else {
			if (cmd->kv.n)
				return mdc_fail(ctx, MDC_ERR_USAGE,
						"delete PartitionName='%s' takes no other pair ('%s')",
						cmd->name, cmd->kv.v[0].key);
			cmd->verb = SCX_DELETE_PART;
		}
	} else if (!strcasecmp(verb, "show")) {
		static const struct { const char *word; enum scx_verb verb; } shows[] = {
			{ "config", SCX_SHOW_CONFIG },
			{ "partition", SCX_SHOW_PART },
			{ "partitions", SCX_SHOW_PART },
			{ "partitionname", SCX_SHOW_PART },
			{ "nodeset", SCX_SHOW_NODESET },
			{ "nodesets", SCX_SHOW_NODESET },
		};

		if (argc < 1)
			return 0;
		for (size_t i = 0; i < sizeof(shows) / sizeof(shows[0]); i++) {
			const char *w = argv[0], *eq = strchr(w, '=');
			size_t n = eq ? (size_t) (eq - w) : strlen(w);

			if (strlen(shows[i].word) != n || strncasecmp(w, shows[i].word, n))
				continue;
			/* "show partition=X" and "show partition X" both name X */
			if (eq && eq[1])
				cmd->name = strdup(eq + 1);
			else if (argc >= 2)
				cmd->name = strdup(argv[1]);
			if ((eq && eq[1]) ? argc > 1 : argc > 2)
				return mdc_fail(ctx, MDC_ERR_USAGE, "show %s: too many arguments", shows[i].word);
			if (shows[i].verb == SCX_SHOW_CONFIG && cmd->name)
				return mdc_fail(ctx, MDC_ERR_USAGE, "show config takes no argument");
			cmd->verb = shows[i].verb;
			break;
		}
	}
	return rc;
}
