/* sc_gen.h - random cluster specs for the renderer/translation property
 * tests (deterministic per seed).  (owner: slurm.conf engine) */
#ifndef SC_GEN_H
#define SC_GEN_H

#include <json-c/json.h>

/* The service-managed base the generated specs render on: its pools
 * (the first two of every spec, when present) have NodeSet lines. */
extern const char sc_gen_base[];

/* A new ModelDevelopmentCluster for SEED (snake_case or, for odd seeds,
 * lowerCamelCase field names); the caller puts it.  NULL on ENOMEM. */
json_object *sc_gen_spec(unsigned seed);

#endif
