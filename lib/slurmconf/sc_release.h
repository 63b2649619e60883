/* sc_release.h - the Slurm releases slurm-mdc judges against (22.05,
 * 24.11, 26.05): which keys and plugins each one has, read from its own
 * source (sc_release_tab.c, written by scripts/gen-slurm-tables), and the
 * release the cluster runs.  (owner: slurm.conf engine)
 *
 * The per-key flags of the service (managed, exec, scope, messages) stay
 * in sc_options.c; this table says only what each release reads.
 */
#ifndef SC_RELEASE_H
#define SC_RELEASE_H

#include <stdbool.h>
#include <stddef.h>

#define SC_NREL 3	/* 22.05, 24.11, 26.05: index order is age order */

/* What a release's read_config.c makes of a key. */
enum sc_rel_state {
	SC_REL_ABSENT,	/* not in its option arrays: "Parsing error ... unknown key" */
	SC_REL_KEY,	/* read */
	SC_REL_DEFUNCT,	/* listed with _defunct_option: read, ignored, an error logged */
};

struct sc_rel_key {
	const char *name;		/* as read_config.c spells it */
	unsigned scope;			/* one enum sc_scope bit */
	unsigned char state[SC_NREL];	/* enum sc_rel_state per release */
	const char *sptype[SC_NREL];	/* its S_P_ type without "S_P_", NULL when absent */
};

struct sc_rel_plugin {
	const char *name;		/* "select/cons_res" */
	unsigned char has[SC_NREL];	/* 1 when the release builds it */
};

/* The words of a list-valued key (SchedulerParameters...). */
struct sc_rel_words {
	const char *key;
	bool exact;			/* each token is one word (else Slurm looks
					 * for each word anywhere in the value) */
	const char *words[SC_NREL];	/* "|"-separated; a word ending in '=' takes a value */
};

/* The generated tables (sc_release_tab.c). */
extern const char *const sc_rel_tab_names[SC_NREL];
extern const struct sc_rel_key sc_rel_keys[];
extern const size_t sc_rel_nkeys;
extern const struct sc_rel_plugin sc_rel_plugins[];
extern const size_t sc_rel_nplugins;
extern const struct sc_rel_words sc_rel_words[];
extern const size_t sc_rel_nwords;

/* "24.11" (or "24.11.5", "slurm 24.11.5") to its index; -1 when it is
 * none of the releases above. */
int sc_rel_parse(const char *text);
/* "22.05" for 0...; "?" out of range. */
const char *sc_rel_name(int rel);
/* The release this build was compiled against (MDC_SLURM_VERSION; an
 * unknown one counts as the newest known release not newer than it). */
int sc_rel_build(void);

/* Where the release judged against came from. */
enum sc_rel_from {
	SC_REL_FROM_BUILD,	/* nothing else said: the build's release */
	SC_REL_FROM_CONF,	/* SlurmRelease in mdc.conf */
	SC_REL_FROM_LIVE,	/* the cluster's own scontrol --version */
	SC_REL_FROM_REMOTE,	/* the cluster's slurmrestd, through callSlurmRestApi */
};
/* The process-wide release to judge against (default: the build's) and
 * where it came from.  Set once by the front end (mdc_slurm_release). */
void sc_rel_set_target(int rel, enum sc_rel_from from);
/* A function that finds the target on first use (sc_release_live.h),
 * unless one was set: mdc_settings_load registers it. */
void sc_rel_set_resolver(int (*fn)(enum sc_rel_from *from));
int sc_rel_target(void);
enum sc_rel_from sc_rel_target_from(void);
/* "Slurm 24.11 (SlurmRelease in mdc.conf)" into BUF. */
const char *sc_rel_describe(char *buf, size_t bufsz);

/* The row of KEY in SCOPE's bits (case ignored, as Slurm compares keys),
 * or NULL when no known release has it there. */
const struct sc_rel_key *sc_rel_key_find(const char *key, unsigned scope);

/* Judge KEY (in any of SCOPE's bits) against release REL: 0 when REL reads
 * it (or no known release does: that is the option table's business);
 * else 2 with one line in WHY naming REL, the release that has the key,
 * and its new name where Slurm renamed it. */
int sc_rel_check_key(const char *key, unsigned scope, int rel, char *why, size_t whysz);

/* Judge the plugin names in VALUE of KEY (a plugin-selecting key such as
 * SelectType, TaskPlugin) against REL: 0, or 2 with WHY as above, also
 * for a TYPE/NAME no release ships (with REL's TYPE plugins and the
 * nearest of them).  Keys that name no plugin type, bare names and
 * TYPE/none values are not judged. */
int sc_rel_check_plugins(const char *key, const char *value, int rel, char *why, size_t whysz);

/* Does `scontrol reconfigure` on REL apply every key, so that none
 * waits for a restart (SC_OPT_RESTART)?  From 23.11 on slurmctld answers
 * it by exec'ing itself anew (24.11 controller.c _try_to_reconfig);
 * 22.05 rereads in place and refuses "SchedulerType change requires
 * restart" and the like. */
bool sc_rel_reconfig_restarts(int rel);

/* The plugin type KEY selects ("select" for SelectType), or NULL. */
const char *sc_rel_plugin_type(const char *key);
/* "TYPE/a, TYPE/b" (TYPE/none left out): the plugins of TYPE that REL
 * ships, into BUF (", ..." at the end when cut); returns how many. */
size_t sc_rel_plugins_list(const char *type, int rel, char *buf, size_t bufsz);
/* The plugin of TYPE that REL ships nearest to VALUE (LEN bytes, with or
 * without "TYPE/"), when it is a likely typo of it; else NULL. */
const char *sc_rel_plugin_suggest(const char *type, const char *value, size_t len, int rel);

/* The word list of KEY (case and underscores ignored) in the generated
 * table, or NULL when it has none. */
const struct sc_rel_words *sc_rel_words_find(const char *key);
/* Does release REL read TOKEN (LEN bytes, one comma-separated item) in
 * the list W?  Exact lists: TOKEN is a word, or starts with a word that
 * ends in '='.  Others: TOKEN contains a word, as xstrcasestr finds it. */
bool sc_rel_word_known(const struct sc_rel_words *w, int rel, const char *token, size_t len);

#endif
