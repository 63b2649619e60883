/* sc_render_base.c - the service-managed base of a live slurm.conf: what
 * sc_render draws on (see sc_render.h).  (owner: slurm.conf engine) */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "mdc_buf.h"
#include "mdc_json.h"
#include "mdc_str.h"
#include "sc_options.h"
#include "sc_render.h"

#define SLURM_SPEC "orchestrator_spec.slurm_spec"

/* Does MAP hold KEY under Slurm's rule (C7)? */
static bool map_has(json_object *map, const char *key)
{
	json_object_object_foreach(map, k, v) {
		(void) v;
		if (mdc_key_eq(k, key))
			return true;
	}
	return false;
}


/* Length of the key at the start of S ("NodeName" of "NodeName=a ..."). */
static size_t key_len(const char *s)
{
	size_t n = 0;

	while (s[n] && s[n] != '=' && s[n] != ' ' && s[n] != '\t' && s[n] != '#')
		n++;
	return n;
}

static bool key_is(const char *s, size_t n, const char *word)
{
	return strlen(word) == n && !strncasecmp(s, word, n);
}

/* Is KEY (N bytes) set by some node set's config in CLUSTER? */
static bool nodeset_key(const json_object *cluster, const char *key, size_t n)
{
	json_object *sets = mdc_json_get_path(cluster, SLURM_SPEC ".node_sets");
	size_t ns = sets && json_object_is_type(sets, json_type_array) ? json_object_array_length(sets) : 0;
	char k[128];

	if (n >= sizeof(k))
		return false;
	memcpy(k, key, n);
	k[n] = '\0';
	for (size_t i = 0; i < ns; i++) {
		json_object *cfg = mdc_json_get_obj(json_object_array_get_idx(sets, i), "config");

		if (cfg && map_has(cfg, k))
			return true;
	}
	return false;
}

/* Does CLUSTER's config (or a legacy map, C9) set KEY? */
static bool spec_sets(const json_object *cluster, const char *key)
{
	static const char *const maps[] = { "config", "scheduling", "accounting" };
	json_object *ss = mdc_json_get_path(cluster, SLURM_SPEC);

	for (size_t i = 0; i < 3; i++) {
		json_object *m = mdc_json_get_obj(ss, maps[i]);

		if (m && map_has(m, key))
			return true;
	}
	return false;
}

/* A NodeName line without the node_sets keys (words split on blanks
 * outside double quotes; a comment ends the line). */
static int put_node_line(struct mdc_buf *out, const char *line, size_t len,
			 const json_object *cluster)
{
	size_t i = 0;
	bool first = true;

	while (i < len) {
		size_t start, klen;
		bool quote = false;

		while (i < len && (line[i] == ' ' || line[i] == '\t'))
			i++;
		if (i >= len || line[i] == '#')
			break;
		start = i;
		while (i < len && (quote || (line[i] != ' ' && line[i] != '\t'))) {
			if (line[i] == '"')
				quote = !quote;
			i++;
		}
		klen = key_len(line + start);
		if (!first && klen && nodeset_key(cluster, line + start, klen))
			continue;
		if ((!first && mdc_buf_addc(out, ' ')) || mdc_buf_add(out, line + start, i - start))
			return MDC_ERR_NOMEM;
		first = false;
	}
	return mdc_buf_addc(out, '\n');
}

int sc_render_base(const char *live, const json_object *cluster, char **base,
		  struct mdc_ctx *ctx)
{
	static const char *const keep[] = { "NodeSet", "DownNodes", "FrontendName", "Include", NULL };
	struct mdc_buf out = MDC_BUF_INIT;
	const char *line, *eol;
	bool spec_part = false;
	int rc = 0;

	*base = NULL;
	for (line = live ? live : ""; *line && !rc; line = *eol ? eol + 1 : eol) {
		const char *s = line;
		size_t len, klen;
		const struct sc_option *opt;
		char key[128];
		bool kept = false;

		eol = strchr(line, '\n');
		if (!eol)
			eol = line + strlen(line);
		while (s < eol && (*s == ' ' || *s == '\t'))
			s++;
		len = (size_t) (eol - s);
		if (len && s[len - 1] == '\r')
			len--;
		klen = key_len(s);
		if (!klen || klen >= sizeof(key) || klen > len)
			continue;	/* blank or comment */
		if (key_is(s, klen, "PartitionName")) {
			spec_part = true;
			continue;	/* the spec's partitions replace them */
		}
		if (key_is(s, klen, "NodeName")) {
			rc = put_node_line(&out, s, len, cluster);
			continue;
		}
		for (size_t i = 0; keep[i]; i++)
			kept |= key_is(s, klen, keep[i]);
		memcpy(key, s, klen);
		key[klen] = '\0';
		/* a global line is the service's unless the spec sets that key
		 * (the service writes plugins and defaults the spec never names)
		 * or it comes after the part the spec renders: the service writes
		 * its own lines first, so a line there was added by hand */
		if (!kept) {
			bool set = spec_sets(cluster, key), managed;

			opt = sc_opt_find(key, SC_SCOPE_CLUSTER);
			managed = opt && (opt->flags & SC_OPT_MANAGED);
			kept = !spec_part && (!set || managed);
			spec_part |= set && !managed;
		}
		if (kept && (mdc_buf_add(&out, s, len) || mdc_buf_addc(&out, '\n')))
			rc = MDC_ERR_NOMEM;
	}
	if (!rc && !(*base = mdc_buf_release(&out)))
		*base = strdup("");
	if (rc || !*base) {
		mdc_buf_free(&out);
		return mdc_nomem(ctx);
	}
	return 0;
}

