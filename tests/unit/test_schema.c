/* test_schema.c - unit tests for lib/mdc_schema.c: the published field tree
 * and mdc_schema_check, which the client runs on a body before sending. */
#include "config.h"
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "mdc_json.h"
#include "mdc_schema.h"

/* What the create page's GPU example sends (lowerCamelCase, as the
 * service prints it), with every required field. */
static const char *const gpu_cluster =
	"{\"displayName\":\"gpu\",\"labels\":{\"team\":\"ml\"},"
	"\"network\":{\"network\":\"projects/p/global/networks/n\"},"
	"\"nodePools\":["
	"{\"id\":\"a3\",\"machineSpec\":{\"machineType\":\"a3-megagpu-8g\","
	"\"acceleratorType\":\"NVIDIA_H100_MEGA_80GB\",\"acceleratorCount\":8,"
	"\"reservationAffinity\":{\"reservationAffinityType\":\"SPECIFIC_RESERVATION\","
	"\"key\":\"compute.googleapis.com/reservation-name\",\"values\":[\"r1\"]}},"
	"\"provisioningModel\":\"RESERVATION\",\"scalingSpec\":{\"minNodeCount\":\"1\",\"maxNodeCount\":2},"
	"\"bootDisk\":{\"bootDiskType\":\"hyperdisk-balanced\",\"bootDiskSizeGb\":200},"
	"\"lustres\":[\"projects/p/locations/z/instances/l\"],\"labels\":{\"k\":\"v\"}},"
	"{\"id\":\"login\",\"machine_spec\":{\"machine_type\":\"n2-standard-8\"},"
	"\"flexStartMaxDuration\":\"3600s\"}],"
	"\"orchestratorSpec\":{\"slurmSpec\":{\"homeDirectoryStorage\":\"projects/p/locations/z/instances/h\","
	"\"partitions\":[{\"id\":\"gpu\",\"nodePoolIds\":[\"a3\"],\"config\":{\"MaxTime\":\"1:00:00\"}}],"
	"\"loginNodePoolId\":\"login\",\"scheduling\":{\"priority_weight_age\":1000}}},"
	"\"runtimeSpec\":{\"serviceAccount\":\"sa@p.iam.gserviceaccount.com\"},"
	"\"lustreExportConfig\":{\"destinationBucket\":\"b\",\"daysOfWeek\":[\"MONDAY\"],"
	"\"startTime\":{\"hours\":3,\"minutes\":30}}}";

static json_object *parse(const char *text)
{
	json_object *o = NULL;
	struct mdc_ctx ctx;

	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_json_parse(text, strlen(text), &o, &ctx), 0);
	return o;
}

/* The error of checking TEXT at PATH (HOW), "" when accepted; the field
 * named goes to FIELD. */
static const char *check(const char *text, const char *path, unsigned how, char *field)
{
	static struct mdc_ctx ctx;
	struct mdc_schema_result res;
	json_object *o = parse(text);
	int rc;

	mdc_ctx_clear(&ctx);
	rc = mdc_schema_check_ex(o, path, how, &res, &ctx);
	json_object_put(o);
	if (field)
		strcpy(field, rc ? res.field : "");
	if (rc)
		assert_int_equal(ctx.err, MDC_ERR_INVAL);
	return rc ? ctx.msg : "";
}

/* TEXT is GPU_CLUSTER with FROM replaced by TO (the first occurrence). */
static char *edited(const char *from, const char *to)
{
	const char *at = strstr(gpu_cluster, from);
	size_t n;
	char *s;

	assert_non_null(at);
	n = strlen(gpu_cluster) - strlen(from) + strlen(to) + 1;
	s = malloc(n);
	assert_non_null(s);
	snprintf(s, n, "%.*s%s%s", (int) (at - gpu_cluster), gpu_cluster, to, at + strlen(from));
	return s;
}

static void test_table(void **state)
{
	const struct mdc_schema_field *f;
	size_t n = 0;

	(void) state;
	/* every row's parent is a message of the table */
	while ((f = mdc_schema_at(n++))) {
		char parent[512];
		char *dot;

		snprintf(parent, sizeof(parent), "%s", f->path);
		if ((dot = strrchr(parent, '.'))) {
			const struct mdc_schema_field *p;

			*dot = '\0';
			p = mdc_schema_find(parent);
			assert_non_null(p);
			assert_int_equal(p->type, MDC_SCHEMA_MESSAGE);
		}
		assert_ptr_equal(mdc_schema_find(f->path), f);
		if (f->type == MDC_SCHEMA_ENUM)
			assert_non_null(f->values);
	}
	assert_true(n > 60);
	f = mdc_schema_find("nodePools.machineSpec.reservationAffinity.reservationAffinityType");
	assert_non_null(f);
	assert_int_equal(f->type, MDC_SCHEMA_ENUM);
	assert_true(f->flags & MDC_SCHEMA_REQUIRED);
	assert_true(mdc_schema_find("display_name")->max == 128);
	assert_true(mdc_schema_find("cluster_status")->flags & MDC_SCHEMA_OUTPUT);
	assert_null(mdc_schema_find("node_pools.gpu_count"));
	assert_null(mdc_schema_find("_pinned_pools"));
	assert_null(mdc_schema_child(NULL, "nope"));
	assert_non_null(mdc_schema_child(mdc_schema_find("node_pools"), "bootDisk"));
}

static void test_immutable(void **state)
{
	(void) state;
	assert_true(mdc_schema_immutable("network"));
	assert_true(mdc_schema_immutable("network.subnetwork"));
	assert_true(mdc_schema_immutable("node_pools.machine_spec.machine_type"));
	assert_true(mdc_schema_immutable("nodePools.provisioningModel"));
	assert_true(mdc_schema_immutable("node_pools.id"));
	assert_true(mdc_schema_immutable("orchestrator_spec.slurm_spec.home_directory_storage"));
	assert_true(mdc_schema_immutable("runtime_spec.service_account"));
	assert_false(mdc_schema_immutable("display_name"));
	assert_false(mdc_schema_immutable("lustre_export_config"));
	assert_false(mdc_schema_immutable("node_pools.scaling_spec.max_node_count"));
	assert_false(mdc_schema_immutable("orchestrator_spec.slurm_spec.partitions"));
	assert_false(mdc_schema_immutable("no_such_field"));
}

static void test_accepts_published(void **state)
{
	char field[512];

	(void) state;
	assert_string_equal(check(gpu_cluster, NULL, 0, field), "");
	assert_string_equal(check(gpu_cluster, NULL, MDC_SCHEMA_CREATE, field), "");
	/* a piece at its place: one pool, a list of pools, a slurm spec */
	assert_string_equal(check("{\"id\":\"x\",\"zone\":\"z\"}", "node_pools", 0, field), "");
	assert_string_equal(check("[{\"id\":\"x\"}]", "nodePools", 0, field), "");
	assert_string_equal(check("{\"config\":{\"A\":\"b\"}}", "orchestrator_spec.slurm_spec", 0, field), "");
	/* null is a field's default in proto3 JSON */
	assert_string_equal(check("{\"display_name\":null,\"labels\":null}", NULL, 0, field), "");
}

static void test_refuses(void **state)
{
	static const struct {
		const char *from, *to;	/* an edit of gpu_cluster */
		const char *field;	/* the field named */
		const char *msg;	/* part of the message */
	} cases[] = {
		{ "\"zone", "\"zone", NULL, NULL },	/* placeholder, skipped */
		{ "\"acceleratorCount\":8", "\"gpuCount\":8",
		  "model_development_cluster.node_pools[0].machine_spec",
		  "Unknown name \"gpuCount\" at 'model_development_cluster.node_pools[0].machine_spec': "
		  "Cannot find field." },
		{ "\"displayName\":\"gpu\"", "\"displayName\":5",
		  "model_development_cluster.display_name", "(TYPE_STRING), 5" },
		{ "\"bootDiskType\":\"hyperdisk-balanced\"", "\"bootDiskType\":\"pd-balanced\"",
		  "model_development_cluster.node_pools[0].boot_disk.boot_disk_type",
		  "expected one of pd-ssd, pd-standard, hyperdisk-balanced" },
		{ "\"provisioningModel\":\"RESERVATION\"", "\"provisioningModel\":\"PREEMPTIBLE\"",
		  "model_development_cluster.node_pools[0].provisioning_model", "FLEX_START" },
		{ "\"minNodeCount\":\"1\"", "\"minNodeCount\":\"one\"",
		  "model_development_cluster.node_pools[0].scaling_spec.min_node_count", "TYPE_INT64" },
		{ "\"flexStartMaxDuration\":\"3600s\"", "\"flexStartMaxDuration\":\"1h\"",
		  "model_development_cluster.node_pools[1].flex_start_max_duration", "TYPE_DURATION" },
		{ "\"lustres\":[\"projects/p/locations/z/instances/l\"]",
		  "\"lustres\":\"projects/p/locations/z/instances/l\"",
		  "model_development_cluster.node_pools[0].lustres", "a list was expected" },
		{ "\"hours\":3", "\"hours\":24",
		  "model_development_cluster.lustre_export_config.start_time.hours", "from 0 to 23" },
		{ "\"MONDAY\"", "\"DAY_OF_WEEK_UNSPECIFIED\"",
		  "model_development_cluster.lustre_export_config.days_of_week[0]", "MONDAY" },
		{ "\"MaxTime\":\"1:00:00\"", "\"MaxTime\":60",
		  "model_development_cluster.orchestrator_spec.slurm_spec.partitions[0].config[MaxTime]",
		  "map values must be strings" },
		{ "\"priority_weight_age\":1000", "\"priority_wait_age\":1000",
		  "model_development_cluster.orchestrator_spec.slurm_spec.scheduling",
		  "Unknown name \"priority_wait_age\"" },
		{ "\"priority_weight_age\":1000", "\"priority_weight_age\":{\"a\":1}",
		  "model_development_cluster.orchestrator_spec.slurm_spec.scheduling.priority_weight_age",
		  "a value was expected" },
		{ "\"displayName\":\"gpu\"", "\"clusterStatus\":{\"state\":\"RUNNING\"}",
		  "model_development_cluster.cluster_status", "output only" },
		{ "\"key\":\"compute", "\"_pinned\":\"compute",
		  "model_development_cluster.node_pools[0].machine_spec.reservation_affinity",
		  "Unknown name \"_pinned\"" },
	};
	char field[512];

	(void) state;
	for (size_t i = 1; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *text = edited(cases[i].from, cases[i].to);
		const char *msg = check(text, NULL, 0, field);

		if (!strstr(msg, cases[i].msg))
			fail_msg("case %zu: '%s' does not contain '%s'", i, msg, cases[i].msg);
		assert_string_equal(field, cases[i].field);
		assert_string_equal(mdc_schema_last_field(), cases[i].field);
		free(text);
	}
	/* the display name: 128 characters (not bytes) */
	{
		char name[400], text[500];

		for (int i = 0; i < 128; i++)
			memcpy(name + 2 * i, "\xc3\xa9", 2);
		name[256] = '\0';
		snprintf(text, sizeof(text), "{\"display_name\":\"%s\"}", name);
		assert_string_equal(check(text, NULL, 0, field), "");
		snprintf(text, sizeof(text), "{\"display_name\":\"%sx\"}", name);
		assert_non_null(strstr(check(text, NULL, 0, field), "129 characters long: at most 128"));
	}
	/* output-only fields ignored where the service ignores them */
	assert_string_equal(check("{\"clusterStatus\":{\"anything\":1},\"createTime\":\"t\"}", NULL,
				  MDC_SCHEMA_OUTPUT_IGNORED, field), "");
	/* the emulator's bookkeeping in a stored resource */
	assert_string_equal(check("{\"_pinned_pools\":[\"cpu\"],\"node_pools\":[{\"id\":\"x\",\"_k\":1}]}", NULL,
				  MDC_SCHEMA_INTERNAL_IGNORED, field), "");
	assert_non_null(strstr(check("{\"_pinned_pools\":[]}", NULL, MDC_SCHEMA_OUTPUT_IGNORED, field),
			       "Unknown name \"_pinned_pools\""));
	/* a path that is no field */
	assert_non_null(strstr(check("{}", "node_pools.nope", 0, field), "no field"));
	/* not an object */
	assert_non_null(strstr(check("[1]", NULL, 0, field), "object was expected"));
}

static void test_required(void **state)
{
	static const struct {
		const char *from, *to, *field;
	} cases[] = {
		{ "\"network\":{\"network\":\"projects/p/global/networks/n\"},", "",
		  "model_development_cluster.network" },
		{ "\"network\":\"projects/p/global/networks/n\"", "\"subnetwork\":\"s\"",
		  "model_development_cluster.network.network" },
		{ "\"machine_spec\":{\"machine_type\":\"n2-standard-8\"},", "",
		  "model_development_cluster.node_pools[1].machine_spec" },
		{ "\"homeDirectoryStorage\":\"projects/p/locations/z/instances/h\",", "",
		  "model_development_cluster.orchestrator_spec.slurm_spec.home_directory_storage" },
		{ "\"loginNodePoolId\":\"login\",", "",
		  "model_development_cluster.orchestrator_spec.slurm_spec.login_node_pool_id" },
		{ "\"reservationAffinityType\":\"SPECIFIC_RESERVATION\",", "",
		  "model_development_cluster.node_pools[0].machine_spec.reservation_affinity."
		  "reservation_affinity_type" },
		{ "\"nodePoolIds\":[\"a3\"]", "\"nodePoolIds\":[]",
		  "model_development_cluster.orchestrator_spec.slurm_spec.partitions[0].node_pool_ids" },
		{ "\"destinationBucket\":\"b\",", "",
		  "model_development_cluster.lustre_export_config.destination_bucket" },
	};
	char field[512];

	(void) state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *text = edited(cases[i].from, cases[i].to);

		/* an update may leave them out; a create may not */
		assert_string_equal(check(text, NULL, 0, field), "");
		assert_non_null(strstr(check(text, NULL, MDC_SCHEMA_CREATE, field), "is required"));
		assert_string_equal(field, cases[i].field);
		free(text);
	}
	assert_non_null(strstr(check("{}", NULL, MDC_SCHEMA_CREATE, field), "network is required"));
	assert_non_null(strstr(check("{\"network\":{\"network\":\"n\"},\"node_pools\":[]}", NULL,
				     MDC_SCHEMA_CREATE, field), "node_pools is required"));
}

/* The service's validation lists every finding of a body, in body order
 * and then the required fields; the front end's refusal (an unknown
 * name) stops at the first. */
static void test_several(void **state)
{
	json_object *o = parse(gpu_cluster), *pool;
	struct mdc_schema_result res;
	struct mdc_ctx ctx;

	(void) state;
	/* two bad enum values in one pool (provisioningModel comes before
	 * bootDisk in it), and no network */
	pool = json_object_array_get_idx(mdc_json_get(o, "nodePools"), 0);
	json_object_object_add(pool, "provisioningModel", json_object_new_string("PREEMPTIBLE"));
	json_object_object_add(mdc_json_get(pool, "bootDisk"), "bootDiskType",
			       json_object_new_string("pd-balanced"));
	json_object_object_del(o, "network");
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_schema_check_ex(o, NULL, MDC_SCHEMA_CREATE, &res, &ctx), MDC_ERR_INVAL);
	assert_false(res.transcoding);
	assert_int_equal(res.nfound, 3);
	assert_string_equal(res.found[0].field, "model_development_cluster.node_pools[0].provisioning_model");
	assert_non_null(strstr(res.found[0].msg, "PREEMPTIBLE"));
	assert_string_equal(res.found[1].field, "model_development_cluster.node_pools[0].boot_disk.boot_disk_type");
	assert_non_null(strstr(res.found[1].msg, "pd-balanced"));
	assert_string_equal(res.found[2].field, "model_development_cluster.network");
	assert_string_equal(res.found[2].msg, "model_development_cluster.network is required");
	/* the first names the error; the message holds them all */
	assert_string_equal(res.field, res.found[0].field);
	assert_string_equal(mdc_schema_last_field(), res.found[0].field);
	assert_non_null(strstr(ctx.msg, "PREEMPTIBLE"));
	assert_non_null(strstr(ctx.msg, "; invalid model_development_cluster.node_pools[0].boot_disk"));
	assert_non_null(strstr(ctx.msg, "; model_development_cluster.network is required"));
	/* an unknown name as well: the front end's refusal alone */
	json_object_object_add(o, "colour", json_object_new_string("red"));
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_schema_check_ex(o, NULL, MDC_SCHEMA_CREATE, &res, &ctx), MDC_ERR_INVAL);
	assert_true(res.transcoding);
	assert_int_equal(res.nfound, 0);
	assert_non_null(strstr(ctx.msg, "Unknown name \"colour\""));
	json_object_put(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_immutable),
		cmocka_unit_test(test_accepts_published),
		cmocka_unit_test(test_refuses),
		cmocka_unit_test(test_required),
		cmocka_unit_test(test_several),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
