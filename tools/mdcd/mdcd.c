/* mdcd - the broker on the login node: holds the API token, answers
 * munge-authenticated requests on a UNIX socket, lets only admins write,
 * one writer per cluster, and records every write.  This file: options,
 * daemon life (pidfile, logging, signals) and the accept loop; requests
 * are mdcd_serve.c's.  (owner: mdcd) */
#define _GNU_SOURCE	/* accept4 */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <netdb.h>
#include <netinet/in.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>
#include "mdc_auth.h"
#include "mdc_broker.h"
#include "mdc_http.h"
#include "mdc_jobs.h"
#include "mdc_log.h"
#include "mdc_str.h"
#include "mdcd.h"

#define MDCD_DEFAULT_STATE "/var/lib/mdcd"
/* a local user cannot make mdcd start threads without bound */
#define MDCD_MAX_CONNS 256
/* API handles kept open between requests: the requests mdcd serves at once */
#define MDCD_WARM_HANDLES 8

/* ---- logging ----------------------------------------------------------- */

static FILE *mdcd_logf;		/* NULL: syslog */
static pthread_mutex_t mdcd_log_lock = PTHREAD_MUTEX_INITIALIZER;

void mdcd_log(int prio, const char *fmt, ...)
{
	static const char *const names[] = { [LOG_ERR] = "error", [LOG_WARNING] = "warning",
					     [LOG_INFO] = "info", [LOG_DEBUG] = "debug" };
	char msg[4096], when[32];
	struct tm tm;
	time_t now = time(NULL);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!mdcd_logf) {
		syslog(prio, "%s", msg);
		return;
	}
	localtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
	pthread_mutex_lock(&mdcd_log_lock);
	fprintf(mdcd_logf, "%s mdcd: %s: %s\n", when,
		prio >= 0 && prio <= LOG_DEBUG && names[prio] ? names[prio] : "info", msg);
	fflush(mdcd_logf);
	pthread_mutex_unlock(&mdcd_log_lock);
}

/* the library's messages go to the same place */
static void mdcd_lib_sink(enum mdc_log_level level, const char *msg, void *arg)
{
	static const int prio[] = { [MDC_LOG_ERROR] = LOG_ERR, [MDC_LOG_WARN] = LOG_WARNING,
				    [MDC_LOG_INFO] = LOG_INFO, [MDC_LOG_DEBUG] = LOG_DEBUG };

	(void) arg;
	mdcd_log(prio[level], "%s", msg);
}

/* ---- settings ------------------------------------------------------------ */

/* Read mdc.conf and the environment into S; a broker mdcd would talk to
 * itself, so Broker= is ignored here. */
static int mdcd_settings_read(struct mdcd *d, struct mdc_settings *s, struct mdc_ctx *ctx)
{
	int rc;

	(void) d;
	memset(s, 0, sizeof(*s));
	if ((rc = mdc_settings_load(s, ctx)) || (rc = mdc_settings_resolve(s, false, ctx)))
		goto out;
	mdc_settings_set(&s->broker, NULL);
	if (s->admin_from_slurm && !mdc_strcaseeq(s->admin_from_slurm, "yes") &&
	    !mdc_strcaseeq(s->admin_from_slurm, "no")) {
		rc = mdc_fail(ctx, MDC_ERR_INVAL, "AdminFromSlurm '%s': use yes or no",
			      s->admin_from_slurm);
		goto out;
	}
	if (!s->slurm_conf && mdc_settings_set(&s->slurm_conf, "/etc/slurm/slurm.conf"))
		rc = mdc_nomem(ctx);
out:
	if (rc)
		mdc_settings_free(s);
	return rc;
}

int mdcd_settings_copy(struct mdcd *d, struct mdc_settings *out)
{
	static const size_t offs[] = {
		offsetof(struct mdc_settings, endpoint), offsetof(struct mdc_settings, cluster),
		offsetof(struct mdc_settings, token_file), offsetof(struct mdc_settings, ca_cert_file),
		offsetof(struct mdc_settings, lock_dir),
		offsetof(struct mdc_settings, slurm_conf), offsetof(struct mdc_settings, project),
		offsetof(struct mdc_settings, region), offsetof(struct mdc_settings, cluster_id),
		offsetof(struct mdc_settings, munge_socket),
		offsetof(struct mdc_settings, admin_groups),
		offsetof(struct mdc_settings, admin_from_slurm),
	};
	int rc = 0;

	memset(out, 0, sizeof(*out));
	pthread_rwlock_rdlock(&d->settings_lock);
	for (size_t i = 0; i < sizeof(offs) / sizeof(offs[0]) && !rc; i++)
		rc = mdc_settings_set((char **) ((char *) out + offs[i]),
				      *(char **) ((char *) &d->s + offs[i]));
	pthread_rwlock_unlock(&d->settings_lock);
	if (rc)
		mdc_settings_free(out);
	return rc;
}

/* JobWaitEnforceInterval of the settings file S was read from (none: 0). */
static int mdcd_interval_read(const struct mdc_settings *s, long *secs, struct mdc_ctx *ctx)
{
	*secs = 0;
	return s->conf_path ? mdc_jobs_interval_load(s->conf_path, secs, ctx) : 0;
}

static void mdcd_reload(struct mdcd *d)
{
	struct mdc_settings s, old;
	struct mdc_ctx ctx;
	long interval;

	mdc_ctx_clear(&ctx);
	/* mdc_settings_free leaves S empty: freeing it twice is harmless */
	if (mdcd_settings_read(d, &s, &ctx) || mdcd_interval_read(&s, &interval, &ctx)) {
		mdc_settings_free(&s);
		mdcd_log(LOG_ERR, "SIGHUP: %s; keeping the previous settings", ctx.msg);
		return;
	}
	pthread_rwlock_wrlock(&d->settings_lock);
	old = d->s;
	d->s = s;
	pthread_rwlock_unlock(&d->settings_lock);
	mdc_settings_free(&old);
	mdcd_enforce_set(d, interval);
	mdcd_log(LOG_INFO, "SIGHUP: settings read again (AdminGroups=%s AdminFromSlurm=%s)",
		 s.admin_groups ? s.admin_groups : "", s.admin_from_slurm ? s.admin_from_slurm : "no");
}

/* ---- socket, pidfile, daemon --------------------------------------------- */

static int mdcd_listen(struct mdcd *d, struct mdc_ctx *ctx)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char *dir = NULL;
	struct stat st;
	int fd = -1, rc = -1;

	if (strlen(d->socket_path) >= sizeof(sa.sun_path)) {
		mdc_fail(ctx, MDC_ERR_USAGE, "socket path '%s' is too long", d->socket_path);
		return -1;
	}
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", d->socket_path);
	/* the directory is ours: 0755, so that anybody reaches the socket and
	 * nobody else puts one there */
	if (!(dir = mdc_path_dirname(d->socket_path))) {
		mdc_nomem(ctx);
		goto out;
	}
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		mdc_fail(ctx, MDC_ERR_IO, "cannot create '%s': %s", dir, strerror(errno));
		goto out;
	}
	if (stat(dir, &st) == 0 && st.st_uid == geteuid() && (st.st_mode & 07777) != 0755)
		chmod(dir, 0755);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0) {
		mdc_fail(ctx, MDC_ERR_IO, "socket: %s", strerror(errno));
		goto out;
	}
	/* a socket left by a previous mdcd that nobody answers on */
	if (lstat(d->socket_path, &st) == 0 && S_ISSOCK(st.st_mode)) {
		int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

		if (probe >= 0 && connect(probe, (struct sockaddr *) &sa, sizeof(sa)) == 0) {
			close(probe);
			mdc_fail(ctx, MDC_ERR_CONFLICT, "another mdcd answers on '%s'", d->socket_path);
			goto out;
		}
		if (probe >= 0)
			close(probe);
		unlink(d->socket_path);
	}
	if (bind(fd, (struct sockaddr *) &sa, sizeof(sa)) < 0 ||
	    chmod(d->socket_path, 0666) < 0 || listen(fd, 64) < 0) {
		mdc_fail(ctx, MDC_ERR_IO, "cannot listen on '%s': %s", d->socket_path, strerror(errno));
		goto out;
	}
	rc = fd;
	fd = -1;
out:
	if (fd >= 0)
		close(fd);
	free(dir);
	return rc;
}

/* The TCP listener (-t HOST:PORT) that login hosts other than this one
 * reach: every request still carries a munge credential bound to its
 * body, decoded by this host's munged (the cluster's one key), so the
 * network adds no trust; only the socket peer check is UNIX-only. */
static int mdcd_listen_tcp(const char *spec, struct mdc_ctx *ctx)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE | AI_NUMERICSERV };
	struct addrinfo *ai = NULL;
	const char *colon = strrchr(spec, ':');
	char host[256];
	int fd = -1, one = 1, e;

	if (!colon || colon == spec || !colon[1] || (size_t) (colon - spec) >= sizeof(host)) {
		mdc_fail(ctx, MDC_ERR_USAGE, "--listen '%s': expected HOST:PORT (e.g. 10.0.0.2:6830)", spec);
		return -1;
	}
	snprintf(host, sizeof(host), "%.*s", (int) (colon - spec), spec);
	if ((e = getaddrinfo(host, colon + 1, &hints, &ai))) {
		mdc_fail(ctx, MDC_ERR_USAGE, "--listen '%s': %s", spec, gai_strerror(e));
		return -1;
	}
	if ((fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 || listen(fd, 64) < 0) {
		mdc_fail(ctx, MDC_ERR_IO, "cannot listen on '%s': %s", spec, strerror(errno));
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	return fd;
}

static int mdcd_write_pidfile(const char *path, struct mdc_ctx *ctx)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%ld\n", (long) getpid());
	return mdc_write_file_atomic(path, buf, strlen(buf), 0644, ctx);
}

/* Detach: fork, setsid, fork; stdio on /dev/null. */
static int mdcd_daemonize(struct mdc_ctx *ctx)
{
	pid_t pid;
	int fd;

	if ((pid = fork()) < 0)
		return mdc_fail(ctx, MDC_ERR_IO, "fork: %s", strerror(errno));
	if (pid > 0)
		_exit(0);
	if (setsid() < 0)
		return mdc_fail(ctx, MDC_ERR_IO, "setsid: %s", strerror(errno));
	if ((pid = fork()) < 0)
		return mdc_fail(ctx, MDC_ERR_IO, "fork: %s", strerror(errno));
	if (pid > 0)
		_exit(0);
	if (chdir("/") < 0)
		return mdc_fail(ctx, MDC_ERR_IO, "chdir /: %s", strerror(errno));
	if ((fd = open("/dev/null", O_RDWR)) >= 0) {
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		if (fd > 2)
			close(fd);
	}
	return 0;
}

/* ---- connections ----------------------------------------------------------- */

struct mdcd_conn {
	struct mdcd *d;
	int fd;
};

static void mdcd_conn_done(struct mdcd *d)
{
	pthread_mutex_lock(&d->active_lock);
	d->conns--;
	pthread_mutex_unlock(&d->active_lock);
}

static void *mdcd_conn_thread(void *arg)
{
	struct mdcd_conn *cn = arg;

	mdcd_serve(cn->d, cn->fd);
	close(cn->fd);
	mdcd_conn_done(cn->d);
	free(cn);
	return NULL;
}

static void mdcd_accept(struct mdcd *d, int lfd)
{
	struct mdcd_conn *cn;
	pthread_attr_t attr;
	pthread_t t;
	int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);

	if (fd < 0) {
		if (errno != EINTR && errno != EAGAIN)
			mdcd_log(LOG_WARNING, "accept: %s", strerror(errno));
		return;
	}
	pthread_mutex_lock(&d->active_lock);
	if (d->conns >= MDCD_MAX_CONNS) {
		pthread_mutex_unlock(&d->active_lock);
		mdcd_log(LOG_WARNING, "%d connections already: one refused", MDCD_MAX_CONNS);
		close(fd);
		return;
	}
	d->conns++;
	pthread_mutex_unlock(&d->active_lock);
	if (!(cn = malloc(sizeof(*cn)))) {
		mdcd_conn_done(d);
		close(fd);
		return;
	}
	cn->d = d;
	cn->fd = fd;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&t, &attr, mdcd_conn_thread, cn)) {
		mdcd_log(LOG_ERR, "cannot start a thread for a connection");
		mdcd_conn_done(d);
		close(fd);
		free(cn);
	}
	pthread_attr_destroy(&attr);
}

/* SIGTERM: stop taking requests, let the write in progress finish. */
static void mdcd_drain(struct mdcd *d)
{
	pthread_mutex_lock(&d->active_lock);
	if (d->writes)
		mdcd_log(LOG_INFO, "stopping: waiting for %d write(s) in progress", d->writes);
	while (d->writes)
		pthread_cond_wait(&d->active_cond, &d->active_lock);
	pthread_mutex_unlock(&d->active_lock);
}

static void mdcd_usage(FILE *f)
{
	fprintf(f,
		"usage: mdcd [OPTIONS]\n"
		"  -f, --conf FILE        mdc.conf to read (default: MDC_CONF or /etc/slurm/mdc.conf)\n"
		"  -s, --socket PATH      listen here (default " MDC_BROKER_DEFAULT_SOCKET ")\n"
		"  -t, --listen HOST:PORT also listen on TCP, for the other login hosts\n"
		"                         (Broker = HOST:PORT in their mdc.conf)\n"
		"  -d, --state-dir DIR    audit log and spec snapshots (default " MDCD_DEFAULT_STATE ")\n"
		"  -p, --pidfile FILE     write the pid here\n"
		"  -l, --log-file FILE    log here instead of syslog\n"
		"  -F, --foreground       do not detach (logs to stderr without --log-file)\n"
		"  -v, --verbose          log each request\n"
		"  -h, --help, -V, --version\n"
		"See mdcd(8).\n");
}

/* The command line into D and *VERBOSE: -1 to go on, else the exit code
 * (--help and --version print and say 0). */
static int mdcd_args(struct mdcd *d, bool *verbose, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "conf", required_argument, NULL, 'f' },
		{ "socket", required_argument, NULL, 's' },
		{ "listen", required_argument, NULL, 't' },
		{ "state-dir", required_argument, NULL, 'd' },
		{ "pidfile", required_argument, NULL, 'p' },
		{ "log-file", required_argument, NULL, 'l' },
		{ "foreground", no_argument, NULL, 'F' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "f:s:t:d:p:l:FvhV", opts, NULL)) != -1) {
		switch (c) {
		case 'f': d->conf_path = optarg; break;
		case 's': d->socket_path = optarg; break;
		case 't': d->tcp_listen = optarg; break;
		case 'd': d->state_dir = optarg; break;
		case 'p': d->pidfile = optarg; break;
		case 'l': d->logfile = optarg; break;
		case 'F': d->foreground = true; break;
		case 'v': *verbose = true; break;
		case 'h': mdcd_usage(stdout); return 0;
		case 'V': printf("mdcd (%s) %s\n", PACKAGE_NAME, PACKAGE_VERSION); return 0;
		default:
			fprintf(stderr, "mdcd: error: unknown option '%s' (see mdcd --help)\n",
				argv[optind - 1]);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "mdcd: error: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	return -1;
}

/* The environment mdcd and its children run in: none of a client's. */
static int mdcd_env(const struct mdcd *d)
{
	/* MDC_BROKER in our own environment would make us our own client */
	unsetenv("MDC_BROKER");
	/* before any thread: the settings are read again on SIGHUP.  With
	 * -f the file alone says what mdcd serves: a client's MDC_CLUSTER
	 * exported in the shell that started it must not redirect it. */
	if (d->conf_path) {
		static const char *const client_env[] = {
			"MDC_ENDPOINT", "MDC_CLUSTER", "MDC_PROJECT", "MDC_REGION",
			"MDC_TOKEN_FILE", "MDC_LOCK_DIR", "MDC_MUNGE_SOCKET", NULL,
		};

		for (size_t i = 0; client_env[i]; i++)
			unsetenv(client_env[i]);
		if (setenv("MDC_CONF", d->conf_path, 1))
			return -1;
	}
	return 0;
}

/* Where mdcd logs: the -l file, stderr in the foreground, else syslog. */
static int mdcd_open_log(const struct mdcd *d)
{
	if (d->logfile) {
		int fd = open(d->logfile, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0640);

		if (fd < 0 || !(mdcd_logf = fdopen(fd, "a"))) {
			fprintf(stderr, "mdcd: error: cannot open log file '%s': %s\n", d->logfile,
				strerror(errno));
			return -1;
		}
	} else if (d->foreground) {
		mdcd_logf = stderr;
	} else {
		openlog("mdcd", LOG_PID, LOG_DAEMON);
	}
	return 0;
}

/* SIGTERM, SIGINT and SIGHUP blocked in every thread and read from the
 * descriptor returned (-1 after logging why). */
static int mdcd_signals(void)
{
	sigset_t sigs;
	int sfd;

	/* signals arrive on a descriptor; no thread is ever interrupted */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);
	if ((sfd = signalfd(-1, &sigs, SFD_CLOEXEC)) < 0)
		mdcd_log(LOG_ERR, "signalfd: %s", strerror(errno));
	return sfd;
}

/* Accept connections until SIGTERM or SIGINT arrives on SFD; SIGHUP reloads. */
static void mdcd_loop(struct mdcd *d, int lfd, int tfd, int sfd)
{
	while (!d->stopping) {
		struct pollfd p[3] = { { lfd, POLLIN, 0 }, { sfd, POLLIN, 0 }, { tfd, POLLIN, 0 } };

		if (poll(p, tfd >= 0 ? 3 : 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			mdcd_log(LOG_ERR, "poll: %s", strerror(errno));
			break;
		}
		if (p[1].revents) {
			struct signalfd_siginfo si;

			if (read(sfd, &si, sizeof(si)) == (ssize_t) sizeof(si)) {
				if (si.ssi_signo == SIGHUP)
					mdcd_reload(d);
				else
					d->stopping = 1;
			}
		}
		if (!d->stopping && p[0].revents)
			mdcd_accept(d, lfd);
		if (!d->stopping && tfd >= 0 && p[2].revents)
			mdcd_accept(d, tfd);
	}
}

int main(int argc, char **argv)
{
	struct mdcd d = {
		.socket_path = MDC_BROKER_DEFAULT_SOCKET, .state_dir = MDCD_DEFAULT_STATE,
		.settings_lock = PTHREAD_RWLOCK_INITIALIZER,
		.active_lock = PTHREAD_MUTEX_INITIALIZER, .active_cond = PTHREAD_COND_INITIALIZER,
		.clusters_lock = PTHREAD_MUTEX_INITIALIZER, .audit_lock = PTHREAD_MUTEX_INITIALIZER,
		.enforce_lock = PTHREAD_MUTEX_INITIALIZER,
	};
	struct mdc_ctx ctx;
	char digest[65];
	int lfd = -1, tfd = -1, sfd = -1, rc;
	bool verbose = false;
	long interval = 0;

	mdc_ctx_clear(&ctx);
	mdc_log_init("mdcd");
	if ((rc = mdcd_args(&d, &verbose, argc, argv)) >= 0)
		return rc;
	rc = 1;
	if (mdcd_env(&d))
		return 1;
	if (mdcd_settings_read(&d, &d.s, &ctx) || mdcd_interval_read(&d.s, &interval, &ctx)) {
		fprintf(stderr, "mdcd: error: %s\n", ctx.msg);
		mdc_settings_free(&d.s);
		return mdc_exit_code(ctx.err);
	}
	/* sacctmgr (AdminFromSlurm) reads the same slurm.conf as we do */
	if (d.s.slurm_conf && setenv("SLURM_CONF", d.s.slurm_conf, 1))
		return 1;
	if (mdcd_open_log(&d))
		return 1;
	mdc_log_set_sink(mdcd_lib_sink, NULL);
	mdc_log_set_level(verbose ? MDC_LOG_DEBUG : MDC_LOG_INFO);
	umask(027);
	/* the libraries loaded on first use (libcurl and its global state,
	 * libcrypto for the requests' digest): now, before any thread, so a
	 * missing one stops mdcd here and not at its first request */
	if (mdc_http_init(&ctx) || mdc_sha256_hex("", 0, digest, &ctx)) {
		fprintf(stderr, "mdcd: error: %s\n", ctx.msg);
		return 1;
	}
	/* each request makes a client: its API connection (kept handles) and
	 * an expiring token stay for the next */
	mdc_http_keep(MDCD_WARM_HANDLES);
	mdc_auth_share(true);
	if (mdcd_audit_init(&d, &ctx) || (lfd = mdcd_listen(&d, &ctx)) < 0 ||
	    (d.tcp_listen && (tfd = mdcd_listen_tcp(d.tcp_listen, &ctx)) < 0)) {
		fprintf(stderr, "mdcd: error: %s\n", ctx.msg);
		mdcd_log(LOG_ERR, "%s", ctx.msg);
		goto out;
	}
	if (!d.foreground && mdcd_daemonize(&ctx)) {
		mdcd_log(LOG_ERR, "%s", ctx.msg);
		goto out;
	}
	if (d.pidfile && mdcd_write_pidfile(d.pidfile, &ctx)) {
		mdcd_log(LOG_ERR, "%s", ctx.msg);
		goto out;
	}
	if ((sfd = mdcd_signals()) < 0)
		goto out;
	/* after the fork of daemonizing (threads do not survive it) and after
	 * the signal mask (the thread inherits it: signals reach signalfd) */
	mdcd_enforce_set(&d, interval);
	if (mdcd_enforce_start(&d)) {
		mdcd_log(LOG_ERR, "cannot start the job wait enforcement thread");
		goto out;
	}
	mdcd_log(LOG_INFO, "ready on %s%s%s (state in %s, cluster %s)", d.socket_path,
		 d.tcp_listen ? " and " : "", d.tcp_listen ? d.tcp_listen : "", d.state_dir,
		 d.s.cluster ? d.s.cluster : "any");
	if (d.foreground && !d.logfile)
		fprintf(stderr, "mdcd: ready on %s%s%s\n", d.socket_path,
			d.tcp_listen ? " and " : "", d.tcp_listen ? d.tcp_listen : "");
	mdcd_loop(&d, lfd, tfd, sfd);
	close(lfd);
	lfd = -1;
	if (tfd >= 0)
		close(tfd);
	tfd = -1;
	unlink(d.socket_path);
	mdcd_enforce_stop(&d);
	mdcd_drain(&d);
	/* reads still being answered hold no writer lock, but may ask for one:
	 * free the table only when no connection is left */
	pthread_mutex_lock(&d.active_lock);
	if (!d.conns)
		mdcd_cluster_mutexes_free(&d);
	pthread_mutex_unlock(&d.active_lock);
	mdcd_log(LOG_INFO, "stopped");
	rc = 0;
out:
	d.stopping = 1;
	mdcd_enforce_stop(&d);
	if (lfd >= 0)
		close(lfd);
	if (tfd >= 0)
		close(tfd);
	if (sfd >= 0)
		close(sfd);
	if (d.pidfile && rc == 0)
		unlink(d.pidfile);
	mdc_settings_free(&d.s);
	return rc;
}
