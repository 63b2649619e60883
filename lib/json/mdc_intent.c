/* mdc_intent.c - see mdc_intent.h. */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "mdc_intent.h"

static const char *const mdc_op_names[MDC_OP_KIND_MAX] = {
	[MDC_OP_CONFIG_SET] = "config-set",	[MDC_OP_CONFIG_UNSET] = "config-unset",
	[MDC_OP_PART_CREATE] = "partition-create", [MDC_OP_PART_SET] = "partition-set",
	[MDC_OP_PART_UNSET] = "partition-unset", [MDC_OP_PART_POOLS] = "partition-node-pools",
	[MDC_OP_PART_DELETE] = "partition-delete", [MDC_OP_PART_DEFAULT] = "partition-default",
	[MDC_OP_NODESET_SET] = "nodeset-set",	[MDC_OP_NODESET_UNSET] = "nodeset-unset",
	[MDC_OP_POOL_SCALE] = "nodepool-scale",	[MDC_OP_POOL_IMAGE] = "nodepool-image",
	[MDC_OP_PROLOG_ADD] = "prolog-add",	[MDC_OP_PROLOG_REMOVE] = "prolog-remove",
	[MDC_OP_PROLOG_REPLACE] = "prolog-replace", [MDC_OP_EPILOG_ADD] = "epilog-add",
	[MDC_OP_EPILOG_REMOVE] = "epilog-remove", [MDC_OP_EPILOG_REPLACE] = "epilog-replace",
	[MDC_OP_LABEL_SET] = "label-set",	[MDC_OP_LABEL_UNSET] = "label-unset",
	[MDC_OP_MIGRATE_CONFIG] = "migrate-config", [MDC_OP_RAW_PATCH] = "raw-patch",
};

const char *mdc_op_kind_name(enum mdc_op_kind kind)
{
	if ((int) kind < 0 || kind >= MDC_OP_KIND_MAX)
		return "unknown";
	return mdc_op_names[kind];
}

static char *mdc_dup_or_null(const char *s, int *fail)
{
	char *d;

	if (!s)
		return NULL;
	d = strdup(s);
	if (!d)
		*fail = 1;
	return d;
}

struct mdc_op *mdc_intent_add(struct mdc_intent *in, enum mdc_op_kind kind,
			      const char *id, const char *key, const char *value)
{
	struct mdc_op *op;
	int fail = 0;

	if (in->n == in->cap) {
		size_t cap = in->cap ? in->cap * 2 : 8;
		struct mdc_op *ops = realloc(in->ops, cap * sizeof(*ops));

		if (!ops)
			return NULL;
		in->ops = ops;
		in->cap = cap;
	}
	op = &in->ops[in->n];
	memset(op, 0, sizeof(*op));
	op->kind = kind;
	op->id = mdc_dup_or_null(id, &fail);
	op->key = mdc_dup_or_null(key, &fail);
	op->value = mdc_dup_or_null(value, &fail);
	if (fail) {
		free(op->id);
		free(op->key);
		free(op->value);
		return NULL;
	}
	in->n++;
	return op;
}

void mdc_intent_free(struct mdc_intent *in)
{
	for (size_t i = 0; i < in->n; i++) {
		struct mdc_op *op = &in->ops[i];

		free(op->id);
		free(op->key);
		free(op->value);
		free(op->where);
		mdc_strv_free(&op->list);
		mdc_strv_free(&op->kv);
	}
	free(in->ops);
	mdc_strv_free(&in->notes);
	mdc_strv_free(&in->refusals);
	memset(in, 0, sizeof(*in));
}
