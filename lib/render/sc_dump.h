/* sc_dump.h - the slurm.conf reader's JSON dump, in libmdc (json-c) and
 * not in lib/slurmconf/, which the plugins link. */
#ifndef SC_DUMP_H
#define SC_DUMP_H

#include <json-c/json.h>
#include "sc_conf.h"

/* What was read, for `mdcctl conf dump --format json`: a new object
 * {files, globals:[{key,value,file,line,col}], records:[{type,name,default,
 * file,line,keys:[...]}], diagnostics:[{severity,file,line,col,message}]}
 * (NULL on ENOMEM; the caller puts it). */
json_object *sc_conf_to_json(const struct sc_conf *conf);

#endif
