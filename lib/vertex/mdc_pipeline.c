/* mdc_pipeline.c - pipeline runs on a persistent resource (P5): job ids
 * and names, durations, the PipelineJob body.  See mdc_pipeline.h. */
#include "config.h"
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mdc_buf.h"
#include "mdc_json.h"
#include "mdc_pipeline.h"
#include "mdc_pr.h"
#include "mdc_pr_int.h"
#include "mdc_pr_yaml.h"

int mdc_pipeline_check_job_id(const char *id, struct mdc_ctx *ctx)
{
	size_t n = id ? strlen(id) : 0;

	if (n == 0 || n > 128 || !(id[0] >= 'a' && id[0] <= 'z'))
		goto bad;
	for (size_t i = 0; i < n; i++)
		if (!((id[i] >= 'a' && id[i] <= 'z') || (id[i] >= '0' && id[i] <= '9') ||
		      id[i] == '-'))
			goto bad;
	return 0;
bad:
	return mdc_fail(ctx, MDC_ERR_INVAL, "pipeline job id '%s': use 1-128 lowercase "
			"letters, digits and hyphens, starting with a letter", id ? id : "");
}
char *mdc_pipeline_console_link(const char *region, const char *project, const char *job_name)
{
	return mdc_pr_strdupf("https://console.cloud.google.com/vertex-ai/locations/%s/"
			  "pipelines/runs/%s?project=%s", region, mdc_pr_basename(job_name),
			  project);
}
/* --- pipeline runs ------------------------------------------------------- */

int mdc_pipeline_duration_ms(const char *s, int64_t *ms, struct mdc_ctx *ctx)
{
	static const struct { const char *unit; double ms; } units[] = {
		{ "ms", 1 }, { "s", 1000 }, { "m", 60000 }, { "h", 3600000 }, { "d", 86400000 },
	};
	const char *p = s;
	double total = 0;

	if (!s || !*s || !(isdigit((unsigned char) *s) || *s == '.'))
		goto bad;
	{
		char *end;
		double n = strtod(s, &end);

		if (!*end) {		/* a bare number is seconds */
			total = n * 1000;
			p = end;
		}
	}
	while (*p) {
		char *end;
		double n;
		size_t u, best = 0, bestlen = 0;

		if (!isdigit((unsigned char) *p) && *p != '.')
			goto bad;
		errno = 0;
		n = strtod(p, &end);
		if (end == p || errno || n < 0)
			goto bad;
		p = end;
		/* longest unit first, so "ms" is not read as "m" */
		for (u = 0; u < sizeof(units) / sizeof(units[0]); u++) {
			size_t l = strlen(units[u].unit);

			if (!strncmp(p, units[u].unit, l) && l > bestlen) {
				best = u;
				bestlen = l;
			}
		}
		if (!bestlen)
			goto bad;
		total += n * units[best].ms;
		p += bestlen;
	}
	if (!(total < 9.2e18))
		goto bad;
	*ms = (int64_t) llround(total);
	return 0;
bad:
	return mdc_fail(ctx, MDC_ERR_USAGE, "duration '%s': use a number of seconds or "
			"units like 500ms, 30s, 10m, 1h30m, 2d", s ? s : "");
}

int mdc_pipeline_timeout_behavior(const char *s, const char **enum_name, struct mdc_ctx *ctx)
{
	static const struct { const char *flag, *name; } tb[] = {
		{ "fail", "FAIL" },
		{ "fall-back-to-on-demand", "FALL_BACK_TO_ON_DEMAND" },
	};

	for (size_t i = 0; s && i < sizeof(tb) / sizeof(tb[0]); i++)
		if (!strcmp(s, tb[i].flag) || !strcmp(s, tb[i].name)) {
			*enum_name = tb[i].name;
			return 0;
		}
	return mdc_fail(ctx, MDC_ERR_USAGE, "--on-timeout '%s': use fail or "
			"fall-back-to-on-demand", s ? s : "");
}

int mdc_pipeline_check_runnable(const json_object *res, const char *name, struct mdc_ctx *ctx)
{
	json_object *sa = mdc_json_get_path(res, "resource_runtime_spec.service_account_spec");
	const char *state = mdc_json_get_str(res, "state", "");

	if (!sa || !mdc_json_get_bool(sa, "enable_custom_service_account", false))
		return mdc_fail(ctx, MDC_ERR_REFUSED, "persistent resource '%s' does not have "
				"the custom service account enabled: pipelines cannot use it; "
				"create one with --enable-custom-service-account", name);
	if (!strcmp(state, "ERROR") || !strcmp(state, "STOPPING"))
		return mdc_fail(ctx, MDC_ERR_REFUSED, "persistent resource '%s' is %s: "
				"pipelines cannot run on it", name, state);
	return 0;
}

/* KFP's parameter types (v2 parameterType, and the older type names) */
enum pr_ptype { PT_STRING, PT_INT, PT_DOUBLE, PT_BOOL, PT_LIST, PT_STRUCT };

static const struct { const char *name; enum pr_ptype t; } pr_ptypes[] = {
	{ "STRING", PT_STRING }, { "NUMBER_INTEGER", PT_INT }, { "INT", PT_INT },
	{ "NUMBER_DOUBLE", PT_DOUBLE }, { "DOUBLE", PT_DOUBLE }, { "BOOLEAN", PT_BOOL },
	{ "LIST", PT_LIST }, { "STRUCT", PT_STRUCT },
};

static enum pr_ptype pr_param_type(const json_object *def)
{
	const char *t = mdc_json_get_str(def, "parameterType", NULL);

	if (!t)
		t = mdc_json_get_str(def, "type", "STRING");
	for (size_t i = 0; i < sizeof(pr_ptypes) / sizeof(pr_ptypes[0]); i++)
		if (!strcmp(t, pr_ptypes[i].name))
			return pr_ptypes[i].t;
	return PT_STRING;
}

static int pr_param_value(const char *k, const char *v, enum pr_ptype t, json_object **out,
			  struct mdc_ctx *ctx)
{
	static const char *const names[] = {
		[PT_STRING] = "a string", [PT_INT] = "an integer", [PT_DOUBLE] = "a number",
		[PT_BOOL] = "true or false", [PT_LIST] = "a JSON list", [PT_STRUCT] = "a JSON object",
	};
	struct mdc_ctx jctx;
	char *end;
	int64_t i;
	double d;

	*out = NULL;
	switch (t) {
	case PT_INT:
		if (!mdc_pr_parse_int(v, INT64_MIN, INT64_MAX, &i))
			goto bad;
		*out = json_object_new_int64(i);
		break;
	case PT_DOUBLE:
		errno = 0;
		d = strtod(v, &end);
		if (!*v || *end || errno || !isfinite(d))
			goto bad;
		*out = json_object_new_double(d);
		break;
	case PT_BOOL:
		if (strcmp(v, "true") && strcmp(v, "false"))
			goto bad;
		*out = json_object_new_boolean(!strcmp(v, "true"));
		break;
	case PT_LIST:
	case PT_STRUCT:
		mdc_ctx_clear(&jctx);
		if (mdc_json_parse(v, strlen(v), out, &jctx) ||
		    !json_object_is_type(*out, t == PT_LIST ? json_type_array : json_type_object)) {
			json_object_put(*out);
			*out = NULL;
			goto bad;
		}
		return 0;
	default:
		*out = json_object_new_string(v);
		break;
	}
	return *out ? 0 : mdc_nomem(ctx);
bad:
	return mdc_fail(ctx, MDC_ERR_USAGE, "--parameter %s='%s': the pipeline declares "
			"'%s' as %s", k, v, k, names[t]);
}

/* parameter_values from "k=v" items, typed by the spec's declarations */
static int pr_params(const json_object *spec, const struct mdc_strv *items,
		     json_object **out, struct mdc_ctx *ctx)
{
	json_object *defs = mdc_json_get_path(spec, "root.inputDefinitions.parameters");
	json_object *vals = NULL, *val = NULL;
	struct mdc_buf b = MDC_BUF_INIT;
	char *k = NULL;
	int rc = 0;

	*out = NULL;
	if (!(vals = json_object_new_object()))
		goto nomem;
	for (size_t i = 0; items && i < items->n; i++) {
		const char *eq = strchr(items->v[i], '=');
		json_object *def = NULL;

		if (!eq || eq == items->v[i]) {
			rc = mdc_fail(ctx, MDC_ERR_USAGE, "--parameter '%s' is not NAME=VALUE",
				      items->v[i]);
			goto out;
		}
		free(k);
		if (!(k = strndup(items->v[i], (size_t) (eq - items->v[i]))))
			goto nomem;
		if (!defs || !json_object_object_get_ex(defs, k, &def)) {
			if (defs) {
				json_object_object_foreach(defs, dk, dv) {
					(void) dv;
					mdc_buf_addf(&b, "%s%s", b.len ? ", " : "", dk);
				}
			}
			rc = mdc_fail(ctx, MDC_ERR_USAGE, "--parameter '%s': the pipeline has no "
				      "such parameter (%s%s)", k, defs ? "it takes: " : "it takes none",
				      mdc_buf_str(&b));
			goto out;
		}
		if ((rc = pr_param_value(k, eq + 1, pr_param_type(def), &val, ctx)))
			goto out;
		if (json_object_object_add(vals, k, val))
			goto nomem;
		val = NULL;
	}
	/* every missing one at once: not one run per parameter */
	if (defs && json_object_is_type(defs, json_type_object)) {
		struct mdc_buf add = MDC_BUF_INIT;
		size_t missing = 0;

		mdc_buf_reset(&b);
		json_object_object_foreach(defs, pk, pv) {
			if (json_object_object_get_ex(vals, pk, NULL) || mdc_json_get(pv, "defaultValue") ||
			    mdc_json_get_bool(pv, "isOptional", false))
				continue;
			if (mdc_buf_addf(&b, "%s'%s'", missing ? ", " : "", pk) ||
			    mdc_buf_addf(&add, " --parameter %s=VALUE", pk)) {
				mdc_buf_free(&add);
				goto nomem;
			}
			missing++;
		}
		if (missing)
			rc = mdc_fail(ctx, MDC_ERR_USAGE, "the pipeline needs parameter%s %s: add%s",
				      missing == 1 ? "" : "s", mdc_buf_str(&b), mdc_buf_str(&add));
		mdc_buf_free(&add);
		if (rc)
			goto out;
	}
	*out = vals;
	vals = NULL;
	goto out;
nomem:
	rc = mdc_nomem(ctx);
out:
	free(k);
	mdc_buf_free(&b);
	json_object_put(val);
	json_object_put(vals);
	return rc;
}

int mdc_pipeline_body(const struct mdc_pipeline_run_opts *o, json_object **out,
			 struct mdc_ctx *ctx)
{
	json_object *doc = NULL, *spec, *params = NULL, *body = NULL, *rt, *detail, *labels;
	const char *behavior, *dn;
	int64_t wait_ms;
	int rc;

	*out = NULL;
	if (!o->pipeline_path)
		return mdc_fail(ctx, MDC_ERR_USAGE, "give --pipeline COMPILED.yaml");
	if (!o->pipeline_root || !mdc_startswith(o->pipeline_root, "gs://") ||
	    !o->pipeline_root[5])
		return mdc_fail(ctx, MDC_ERR_USAGE, "--pipeline-root '%s': give a Cloud Storage "
				"path gs://BUCKET/DIR", o->pipeline_root ? o->pipeline_root : "");
	if (!o->wait_time)
		return mdc_fail(ctx, MDC_ERR_USAGE, "give --wait-time DURATION (how long a task "
				"waits for the persistent resource)");
	if ((rc = mdc_pipeline_duration_ms(o->wait_time, &wait_ms, ctx)) ||
	    (rc = mdc_pipeline_timeout_behavior(o->on_timeout, &behavior, ctx)))
		return rc;
	if ((rc = mdc_pr_yaml_load(o->pipeline_path, &doc, ctx)))
		goto out;
	/* a PipelineJob file (pipelineSpec + runtimeConfig) holds the spec inside */
	spec = mdc_json_get_obj(doc, "pipelineSpec") ? mdc_json_get_obj(doc, "pipelineSpec") : doc;
	if (!json_object_is_type(spec, json_type_object) || !mdc_json_get_obj(spec, "root")) {
		rc = mdc_fail(ctx, MDC_ERR_INVAL, "'%s' is not a compiled pipeline (no 'root'): "
			      "compile it with the KFP compiler first", o->pipeline_path);
		goto out;
	}
	if ((rc = pr_params(spec, o->parameters, &params, ctx)))
		goto out;
	dn = o->display_name ? o->display_name :
		mdc_json_get_str(mdc_json_get_obj(spec, "pipelineInfo"), "name", "pipeline");
	if (!(body = json_object_new_object()) ||
	    json_object_object_add(body, "display_name", json_object_new_string(dn)) ||
	    json_object_object_add(body, "pipeline_spec", json_object_get(spec)))
		goto nomem;
	if (o->labels && o->labels->n) {
		if (!(labels = json_object_new_object()) ||
		    json_object_object_add(body, "labels", labels))
			goto nomem;
		for (size_t i = 0; i < o->labels->n; i++)
			if ((rc = mdc_pr_labels_add(labels, o->labels->v[i], ctx)))
				goto out;
	}
	if (!(rt = mdc_json_mkpath(body, "runtime_config")) ||
	    json_object_object_add(rt, "gcs_output_directory",
				   json_object_new_string(o->pipeline_root)) ||
	    json_object_object_add(rt, "parameter_values", params))
		goto nomem;
	params = NULL;
	if (!(detail = mdc_json_mkpath(rt, "default_runtime.persistent_resource_runtime_detail")) ||
	    json_object_object_add(detail, "persistent_resource_name",
				   json_object_new_string(o->resource_name)) ||
	    json_object_object_add(detail, "task_resource_unavailable_wait_time_ms",
				   json_object_new_int64(wait_ms)) ||
	    json_object_object_add(detail, "task_resource_unavailable_timeout_behavior",
				   json_object_new_string(behavior)))
		goto nomem;
	*out = body;
	body = NULL;
	goto out;
nomem:
	rc = mdc_nomem(ctx);
out:
	json_object_put(params);
	json_object_put(body);
	json_object_put(doc);
	return rc;
}


int mdc_pipeline_job_name(const char *project, const char *region, const char *name_or_id,
			  char **out, struct mdc_ctx *ctx)
{
	if (strchr(name_or_id, '/'))
		*out = strdup(name_or_id);
	else if (!project || !*project || !region || !*region)
		return mdc_fail(ctx, MDC_ERR_USAGE, "pipelineJobs '%s': give --project and "
				"--region, or its full name", name_or_id);
	else
		*out = mdc_pr_strdupf("projects/%s/locations/%s/pipelineJobs/%s", project, region,
				      name_or_id);
	return *out ? 0 : mdc_nomem(ctx);
}
