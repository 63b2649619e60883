/* mdcd_audit.c - the record of writes: STATE/audit.log, one JSON object
 * per line (append-only, the id is the line number), and the spec before
 * and after each write in STATE/specs/ID.{before,after}.json.  Files are
 * 0640: users see the history through mdcd, not the files.  (owner: mdcd) */
#define _GNU_SOURCE	/* asprintf */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>
#include "mdc_broker.h"
#include "mdc_buf.h"
#include "mdc_json.h"
#include "mdc_str.h"
#include "mdcd.h"

/* STATE/audit.log (WHICH NULL) or STATE/specs/ID.WHICH.json */
static char *mdcd_path(struct mdcd *d, const char *which, long id)
{
	char name[256];

	if (!which)
		return mdc_path_join(d->state_dir, "audit.log");
	snprintf(name, sizeof(name), "specs/%ld.%s.json", id, which);
	return mdc_path_join(d->state_dir, name);
}

int mdcd_audit_init(struct mdcd *d, struct mdc_ctx *ctx)
{
	char *specs = mdc_path_join(d->state_dir, "specs"), *log = mdcd_path(d, NULL, 0);
	char *text = NULL;
	size_t len = 0;
	int rc = 0;

	if (!specs || !log) {
		rc = mdc_nomem(ctx);
		goto out;
	}
	if ((mkdir(d->state_dir, 0750) < 0 && errno != EEXIST) ||
	    (mkdir(specs, 0750) < 0 && errno != EEXIST)) {
		rc = mdc_fail(ctx, MDC_ERR_IO, "cannot create '%s': %s", specs, strerror(errno));
		goto out;
	}
	d->audit_next = 1;
	if (access(log, F_OK) == 0) {
		if ((rc = mdc_read_file(log, &text, &len, ctx)))
			goto out;
		for (size_t i = 0; i < len; i++)
			d->audit_next += text[i] == '\n';
	}
out:
	free(text);
	free(specs);
	free(log);
	return rc;
}

char *mdcd_spec_digest(const json_object *spec)
{
	const char *s;
	char hex[65], *out;

	if (!spec)
		return NULL;
	s = mdc_json_str(spec, false);
	if (mdc_sha256_hex(s, strlen(s), hex, NULL) || asprintf(&out, "sha256:%s", hex) < 0)
		return NULL;
	return out;
}

static void mdcd_keep_spec(struct mdcd *d, long id, const char *which, const json_object *spec)
{
	const char *s;
	struct mdc_ctx tmp;
	char *path;

	if (!spec)
		return;
	if (!(path = mdcd_path(d, which, id)))
		return;
	s = mdc_json_str(spec, true);
	mdc_ctx_clear(&tmp);
	if (mdc_write_file_atomic(path, s, strlen(s), 0640, &tmp))
		mdcd_log(LOG_ERR, "audit %ld: cannot keep the spec %s: %s", id, which, tmp.msg);
	free(path);
}

long mdcd_audit_append(struct mdcd *d, json_object *entry, const json_object *before,
		       const json_object *after)
{
	char *log = mdcd_path(d, NULL, 0);
	const char *line;
	long id = -1;
	int fd = -1;

	if (!log)
		return -1;
	pthread_mutex_lock(&d->audit_lock);
	json_object_object_add(entry, "id", json_object_new_int64(d->audit_next));
	line = mdc_json_str(entry, false);
	if ((fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0640)) < 0 ||
	    write(fd, line, strlen(line)) != (ssize_t) strlen(line) || write(fd, "\n", 1) != 1 ||
	    fsync(fd) < 0) {
		mdcd_log(LOG_ERR, "cannot append to '%s': %s", log, strerror(errno));
		goto out;
	}
	id = d->audit_next++;
	mdcd_keep_spec(d, id, "before", before);
	mdcd_keep_spec(d, id, "after", after);
	mdcd_log(LOG_INFO, "audit %ld: %s", id, line);
out:
	if (fd >= 0)
		close(fd);
	pthread_mutex_unlock(&d->audit_lock);
	free(log);
	return id;
}

int mdcd_audit_list(struct mdcd *d, const char *cluster, json_object **out,
		    struct mdc_ctx *ctx)
{
	char *log = mdcd_path(d, NULL, 0), *text = NULL, *line, *next;
	json_object *list = json_object_new_array();
	int rc = 0;

	*out = NULL;
	if (!log || !list) {
		rc = mdc_nomem(ctx);
		goto out;
	}
	pthread_mutex_lock(&d->audit_lock);
	if (access(log, F_OK) == 0)
		rc = mdc_read_file(log, &text, NULL, ctx);
	pthread_mutex_unlock(&d->audit_lock);
	if (rc)
		goto out;
	for (line = text; line && *line; line = next) {
		json_object *e = NULL;
		struct mdc_ctx tmp;

		if ((next = strchr(line, '\n')))
			*next++ = '\0';
		mdc_ctx_clear(&tmp);
		if (!*line || mdc_json_parse(line, strlen(line), &e, &tmp))
			continue;
		if (cluster && mdc_json_get_str(e, "cluster", NULL) &&
		    strcmp(cluster, mdc_json_get_str(e, "cluster", ""))) {
			json_object_put(e);
			continue;
		}
		json_object_array_add(list, e);
	}
	*out = list;
	list = NULL;
out:
	json_object_put(list);
	free(text);
	free(log);
	return rc;
}

int mdcd_audit_snapshot(struct mdcd *d, long id, bool before, json_object **out,
			struct mdc_ctx *ctx)
{
	char *path = mdcd_path(d, before ? "before" : "after", id);
	int rc;

	*out = NULL;
	if (!path)
		return mdc_nomem(ctx);
	if (id <= 0 || id >= d->audit_next)
		rc = mdc_fail(ctx, MDC_ERR_NOTFOUND, "no write %ld in mdcd's history", id);
	else if (access(path, F_OK))
		rc = mdc_fail(ctx, MDC_ERR_NOTFOUND, "write %ld kept no spec %s it (it changed "
			      "nothing or was not a safe update)", id, before ? "before" : "after");
	else
		rc = mdc_json_parse_file(path, out, ctx);
	free(path);
	return rc;
}
