/* mdc_str.c - see mdc_str.h. */
#include "config.h"
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "mdc_buf.h"
#include "mdc_err.h"
#include "mdc_str.h"

bool mdc_key_eq(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	for (;;) {
		while (*a == '_')
			a++;
		while (*b == '_')
			b++;
		if (!*a || !*b)
			return *a == *b;
		if (tolower((unsigned char) *a) != tolower((unsigned char) *b))
			return false;
		a++;
		b++;
	}
}

bool mdc_strcaseeq(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return strcasecmp(a, b) == 0;
}

bool mdc_streq(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return strcmp(a, b) == 0;
}

size_t mdc_str_distance(const char *a, size_t la, const char *b, size_t lb)
{
	size_t row[64], i, j, prev, tmp;

	if (la >= 64 || lb >= 64)
		return (size_t) -1;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			tmp = row[j];
			row[j] = prev + (a[i - 1] != b[j - 1]);
			if (row[j - 1] + 1 < row[j])
				row[j] = row[j - 1] + 1;
			if (tmp + 1 < row[j])
				row[j] = tmp + 1;
			prev = tmp;
		}
	}
	return row[lb];
}

bool mdc_startswith(const char *s, const char *prefix)
{
	return s && prefix && strncmp(s, prefix, strlen(prefix)) == 0;
}

char *mdc_trim(char *s)
{
	char *e;

	while (isspace((unsigned char) *s))
		memmove(s, s + 1, strlen(s));
	e = s + strlen(s);
	while (e > s && isspace((unsigned char) e[-1]))
		*--e = '\0';
	return s;
}

bool mdc_has_ctrl(const char *s)
{
	for (; s && *s; s++)
		if ((unsigned char) *s < 0x20 || (unsigned char) *s == 0x7f)
			return true;
	return false;
}

int mdc_strv_push(struct mdc_strv *sv, const char *s)
{
	char *dup, **v;

	if (sv->n + 2 > sv->cap) {
		size_t cap = sv->cap ? sv->cap * 2 : 8;

		v = realloc(sv->v, cap * sizeof(*v));
		if (!v)
			return MDC_ERR_NOMEM;
		sv->v = v;
		sv->cap = cap;
	}
	dup = strdup(s);
	if (!dup)
		return MDC_ERR_NOMEM;
	sv->v[sv->n++] = dup;
	sv->v[sv->n] = NULL;
	return 0;
}

int mdc_strv_pushf(struct mdc_strv *sv, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n, rc;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !(s = malloc((size_t) n + 1)))
		return MDC_ERR_NOMEM;
	va_start(ap, fmt);
	vsnprintf(s, (size_t) n + 1, fmt, ap);
	va_end(ap);
	rc = mdc_strv_push(sv, s);
	free(s);
	return rc;
}

bool mdc_strv_has(const struct mdc_strv *sv, const char *s)
{
	for (size_t i = 0; i < sv->n; i++)
		if (strcmp(sv->v[i], s) == 0)
			return true;
	return false;
}

int mdc_strv_split(struct mdc_strv *sv, const char *s, const char *seps)
{
	char *copy, *tok, *save = NULL;
	int rc = 0;

	if (!s)
		return 0;
	copy = strdup(s);
	if (!copy)
		return MDC_ERR_NOMEM;
	for (tok = strtok_r(copy, seps, &save); tok; tok = strtok_r(NULL, seps, &save)) {
		mdc_trim(tok);
		if (*tok && (rc = mdc_strv_push(sv, tok)))
			break;
	}
	free(copy);
	return rc;
}

int mdc_strv_split_list(struct mdc_strv *sv, const char *s)
{
	const char *start = s;
	int depth = 0;

	for (const char *p = s; p; p++) {
		if (*p == '[')
			depth++;
		else if (*p == ']' && depth)
			depth--;
		if (*p && (*p != ',' || depth))
			continue;
		if (p > start) {
			char *e = strndup(start, (size_t) (p - start));
			int rc = e ? mdc_strv_push(sv, e) : MDC_ERR_NOMEM;

			free(e);
			if (rc)
				return rc;
		}
		if (!*p)
			return 0;
		start = p + 1;
	}
	return 0;
}

char *mdc_strv_join(const struct mdc_strv *sv, const char *sep)
{
	struct mdc_buf b = MDC_BUF_INIT;

	for (size_t i = 0; i < sv->n; i++)
		if ((i && mdc_buf_adds(&b, sep)) || mdc_buf_adds(&b, sv->v[i])) {
			mdc_buf_free(&b);
			return NULL;
		}
	return mdc_buf_release(&b);
}

static int mdc_strv_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

void mdc_strv_sort(struct mdc_strv *sv)
{
	if (sv->n > 1)
		qsort(sv->v, sv->n, sizeof(*sv->v), mdc_strv_cmp);
}

void mdc_strv_free(struct mdc_strv *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = sv->cap = 0;
}

char *mdc_path_join(const char *dir, const char *name)
{
	struct mdc_buf b = MDC_BUF_INIT;

	if (name[0] == '/' || !dir || !*dir)
		return strdup(name);
	if (mdc_buf_adds(&b, dir) ||
	    (dir[strlen(dir) - 1] != '/' && mdc_buf_addc(&b, '/')) ||
	    mdc_buf_adds(&b, name)) {
		mdc_buf_free(&b);
		return NULL;
	}
	return mdc_buf_release(&b);
}

char *mdc_path_dirname(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return strdup(".");
	if (slash == path)
		return strdup("/");
	return strndup(path, (size_t) (slash - path));
}

int mdc_read_file(const char *path, char **out, size_t *len, struct mdc_ctx *ctx)
{
	struct mdc_buf b = MDC_BUF_INIT;
	char chunk[65536];
	size_t n;
	FILE *f;
	int rc = 0;

	*out = NULL;
	f = fopen(path, "rb");
	if (!f)
		return mdc_fail(ctx, MDC_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		if (mdc_buf_add(&b, chunk, n)) {
			rc = mdc_fail(ctx, MDC_ERR_NOMEM, "reading '%s': out of memory", path);
			goto out;
		}
	if (ferror(f)) {
		rc = mdc_fail(ctx, MDC_ERR_IO, "cannot read '%s': %s", path, strerror(errno));
		goto out;
	}
	if (len)
		*len = b.len;
	*out = mdc_buf_release(&b);
	if (!*out)
		rc = mdc_fail(ctx, MDC_ERR_NOMEM, "reading '%s': out of memory", path);
out:
	mdc_buf_free(&b);
	fclose(f);
	return rc;
}

static const char *mdc_file_kind(mode_t m)
{
	return S_ISDIR(m) ? "a directory" : S_ISFIFO(m) ? "a FIFO" : S_ISCHR(m) ? "a character device" :
	       S_ISBLK(m) ? "a block device" : S_ISSOCK(m) ? "a socket" : "not a regular file";
}

int mdc_read_regular(const char *path, size_t max, unsigned flags, char **out, size_t *len,
		     struct mdc_ctx *ctx)
{
	char *buf = NULL, *nb;
	size_t have = 0, cap;
	struct stat st;
	int fd, rc = 0;
	ssize_t n;

	*out = NULL;
	/* O_NONBLOCK: opening a FIFO must not wait for a writer; on a regular
	 * file it changes nothing */
	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)) < 0)
		return mdc_fail(ctx, MDC_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
	if (fstat(fd, &st)) {
		rc = mdc_fail(ctx, MDC_ERR_IO, "cannot stat '%s': %s", path, strerror(errno));
		goto out;
	}
	/* /dev/null is "empty" (MDC_CONF=/dev/null says "no config file") */
	if (S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3)) {
		rc = (*out = strdup("")) ? 0 : mdc_nomem(ctx);
		if (len)
			*len = 0;
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		rc = mdc_fail(ctx, MDC_ERR_IO, "'%s' is %s, not a regular file: refused", path,
			      mdc_file_kind(st.st_mode));
		goto out;
	}
	if ((flags & MDC_READ_PRIVATE) && (st.st_mode & (S_IRWXG | S_IRWXO))) {
		rc = mdc_fail(ctx, MDC_ERR_IO, "'%s' is accessible by other users (mode %04o): "
			      "refused; run 'chmod 600 %s'", path, (unsigned) (st.st_mode & 07777), path);
		goto out;
	}
	if ((flags & MDC_READ_PRIVATE) && st.st_uid != geteuid() && st.st_uid != 0) {
		rc = mdc_fail(ctx, MDC_ERR_IO, "'%s' belongs to another user (uid %u): refused",
			      path, (unsigned) st.st_uid);
		goto out;
	}
	if ((unsigned long long) st.st_size > max)
		goto too_big;
	/* Straight into a heap buffer sized from st_size (one read for an
	 * unchanged file), not through a large stack chunk: in a plugin every
	 * new stack page is a page fault in each sbatch.  Read to the cap, not
	 * to st_size: the file may grow meanwhile. */
	cap = (size_t) st.st_size + 1 > 4096 ? (size_t) st.st_size + 1 : 4096;
	for (;;) {
		if (have == cap || !buf) {
			if (buf && cap > max)
				goto too_big;
			if (buf)
				cap = cap > max / 2 ? max + 1 : cap * 2;
			if (!(nb = realloc(buf, cap + 1))) {
				rc = mdc_fail(ctx, MDC_ERR_NOMEM, "reading '%s': out of memory", path);
				goto out;
			}
			buf = nb;
		}
		if ((n = read(fd, buf + have, cap - have)) == 0)
			break;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			rc = mdc_fail(ctx, MDC_ERR_IO, "cannot read '%s': %s", path, strerror(errno));
			goto out;
		}
		have += (size_t) n;
	}
	if (have > max)
		goto too_big;
	buf[have] = '\0';
	if (len)
		*len = have;
	*out = buf;
	buf = NULL;
	goto out;
too_big:
	rc = mdc_fail(ctx, MDC_ERR_IO, "'%s' is larger than %zu bytes: refused", path, max);
out:
	free(buf);
	close(fd);
	return rc;
}

/* All of DATA to FD (NAME for the message). */
static int mdc_write_all(int fd, const char *data, size_t len, const char *name,
			 struct mdc_ctx *ctx)
{
	size_t off = 0;

	while (off < len) {
		ssize_t w = write(fd, data + off, len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return mdc_fail(ctx, MDC_ERR_IO, "cannot write '%s': %s", name, strerror(errno));
		off += (size_t) w;
	}
	return 0;
}

int mdc_write_file_atomic(const char *path, const char *data, size_t len,
			  int mode, struct mdc_ctx *ctx)
{
	struct mdc_buf tmp = MDC_BUF_INIT;
	int fd = -1, rc = 0;

	if (mdc_buf_addf(&tmp, "%s.tmp.%ld", path, (long) getpid()))
		return mdc_nomem(ctx);
	fd = open(tmp.s, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (fd < 0) {
		rc = mdc_fail(ctx, MDC_ERR_IO, "cannot create '%s': %s", tmp.s, strerror(errno));
		goto out;
	}
	if ((rc = mdc_write_all(fd, data, len, tmp.s, ctx)))
		goto out;
	if (fchmod(fd, (mode_t) mode) || fsync(fd)) {
		rc = mdc_fail(ctx, MDC_ERR_IO, "cannot sync '%s': %s", tmp.s, strerror(errno));
		goto out;
	}
	if (close(fd)) {
		fd = -1;
		rc = mdc_fail(ctx, MDC_ERR_IO, "cannot close '%s': %s", tmp.s, strerror(errno));
		goto out;
	}
	fd = -1;
	if (rename(tmp.s, path))
		rc = mdc_fail(ctx, MDC_ERR_IO, "cannot rename '%s' to '%s': %s",
			      tmp.s, path, strerror(errno));
out:
	if (fd >= 0)
		close(fd);
	if (rc)
		unlink(tmp.s);
	mdc_buf_free(&tmp);
	return rc;
}

int mdc_write_file_scratch(const char *path, const char *data, size_t len,
			   int mode, struct mdc_ctx *ctx)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	int rc;

	if (fd < 0)
		return mdc_fail(ctx, MDC_ERR_IO, "cannot create '%s': %s", path, strerror(errno));
	rc = mdc_write_all(fd, data, len, path, ctx);
	if (close(fd) && !rc)
		rc = mdc_fail(ctx, MDC_ERR_IO, "cannot close '%s': %s", path, strerror(errno));
	if (rc)
		unlink(path);
	return rc;
}
