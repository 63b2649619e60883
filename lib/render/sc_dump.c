/* sc_dump.c - the slurm.conf reader's JSON dump (`mdcctl conf dump
 * --format json`).  Kept out of lib/slurmconf/ so the plugins, which link
 * only it and lib/base/, never load json-c into slurmctld. */
#include "config.h"
#include "sc_dump.h"

static json_object *kv_json(const struct sc_kv *kv)
{
	json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	json_object_object_add(o, "key", json_object_new_string(kv->key));
	json_object_object_add(o, "value", json_object_new_string(kv->value));
	json_object_object_add(o, "file", json_object_new_string(kv->file));
	json_object_object_add(o, "line", json_object_new_int(kv->line));
	json_object_object_add(o, "col", json_object_new_int(kv->col));
	if (kv->op != '=') {
		char op[3] = { kv->op, '=', '\0' };

		json_object_object_add(o, "operator", json_object_new_string(op));
	}
	if (kv->from_default)
		json_object_object_add(o, "from_default", json_object_new_boolean(1));
	return o;
}

json_object *sc_conf_to_json(const struct sc_conf *conf)
{
	json_object *root = json_object_new_object();
	json_object *files = json_object_new_array();
	json_object *globals = json_object_new_array();
	json_object *recs = json_object_new_array();
	json_object *diags = json_object_new_array();
	size_t i, j;

	if (!root || !files || !globals || !recs || !diags) {
		json_object_put(root);
		json_object_put(files);
		json_object_put(globals);
		json_object_put(recs);
		json_object_put(diags);
		return NULL;
	}
	for (i = 0; i < conf->files.n; i++)
		json_object_array_add(files, json_object_new_string(conf->files.v[i]));
	for (i = 0; i < conf->nglobals; i++)
		json_object_array_add(globals, kv_json(&conf->globals[i]));
	for (i = 0; i < conf->nrecs; i++) {
		const struct sc_record *r = &conf->recs[i];
		json_object *o = json_object_new_object(), *keys = json_object_new_array();

		if (!o || !keys) {
			json_object_put(o);
			json_object_put(keys);
			continue;
		}
		json_object_object_add(o, "type", json_object_new_string(sc_rec_type_name(r->type)));
		json_object_object_add(o, "name", json_object_new_string(r->name));
		if (r->is_default)
			json_object_object_add(o, "default", json_object_new_boolean(1));
		json_object_object_add(o, "file", json_object_new_string(r->file));
		json_object_object_add(o, "line", json_object_new_int(r->line));
		for (j = 0; j < r->nkv; j++)
			json_object_array_add(keys, kv_json(&r->kv[j]));
		json_object_object_add(o, "keys", keys);
		json_object_array_add(recs, o);
	}
	for (i = 0; i < conf->ndiags; i++) {
		const struct sc_diag *d = &conf->diags[i];
		json_object *o = json_object_new_object();

		if (!o)
			continue;
		json_object_object_add(o, "severity", json_object_new_string(d->error ? "error" : "warning"));
		json_object_object_add(o, "file", json_object_new_string(d->file));
		json_object_object_add(o, "line", json_object_new_int(d->line));
		json_object_object_add(o, "col", json_object_new_int(d->col));
		json_object_object_add(o, "message", json_object_new_string(d->msg));
		json_object_array_add(diags, o);
	}
	json_object_object_add(root, "files", files);
	json_object_object_add(root, "globals", globals);
	json_object_object_add(root, "records", recs);
	json_object_object_add(root, "diagnostics", diags);
	return root;
}
