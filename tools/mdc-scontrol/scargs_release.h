/* scargs_release.h - the keyword chains of each release's scontrol, read
 * from its source by scripts/gen-slurm-tables --scontrol into the
 * generated scargs_release_tab.c (update_part.c, update_node.c and the
 * update command's entities in scontrol.c).  scargs.c gives the words their meaning;
 * which words a release takes, how short they may be and in which order
 * they are tried is only here.  (owner: scontrol)
 */
#ifndef SCARGS_RELEASE_H
#define SCARGS_RELEASE_H

#include <stddef.h>
#include "sc_release.h"

enum scx_rel_how {
	SCX_REL_PREFIX,		/* MAX(taglen, MIN): a prefix of at least MIN */
	SCX_REL_FIXED,		/* MIN characters compared (shorter: whole word) */
	SCX_REL_EXACT,		/* the whole word only */
};

struct scx_rel_word {
	const char *word;	/* as scontrol spells it */
	unsigned char min;
	unsigned char how;	/* enum scx_rel_how */
};

struct scx_rel_chain {
	const struct scx_rel_word *w;
	size_t n;
};

/* Indexed by release (sc_release.h): scontrol_parse_part_options(),
 * scontrol_update_node() and the entities of _update_it(). */
extern const struct scx_rel_chain scx_rel_part[SC_NREL];
extern const struct scx_rel_chain scx_rel_node[SC_NREL];
extern const struct scx_rel_chain scx_rel_update[SC_NREL];
/* 1: the update command reads Key+=V and Key-=V (its tag ends before the
 * sign), 0: the sign is part of the tag. */
extern const unsigned char scx_rel_update_modes[SC_NREL];

#endif
