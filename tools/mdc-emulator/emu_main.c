/* mdc-emulator - a local ModelDevelopmentCluster API (DESIGN section 3)
 * that regenerates slurm.conf and reloads a real slurmctld.  Options and
 * start-up; the server is in emu_server.c. */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "emu_int.h"
#include "emu_slurmrest.h"
#include "mdc_json.h"
#include "mdc_log.h"
#include "mdc_str.h"
#include "sc_release.h"

#define EMU_DEFAULT_IMAGE "mdc-image-2026-10"

static volatile sig_atomic_t emu_stop;

static void emu_on_signal(int sig)
{
	(void) sig;
	emu_stop = 1;
}

static void emu_usage(FILE *f)
{
	fprintf(f,
		"usage: mdc-emulator --listen 127.0.0.1:PORT [OPTIONS]\n"
		"\n"
		"A local ModelDevelopmentCluster API (see mdc-emulator(8)).\n"
		"\n"
		"  --listen HOST:PORT     address to serve (PORT 0 picks a free port)\n"
		"  --state FILE           keep clusters and operations in FILE across restarts\n"
		"  --request-log FILE     append one JSON line per request\n"
		"  --lro-seconds S        how long operations run (default 0.5)\n"
		"  --token-file FILE      require 'Authorization: Bearer T', T read from FILE\n"
		"                         (owned by this user, mode 0600 or stricter)\n"
		"  --token T              the same with T in argv (visible to every local\n"
		"                         user in ps: for tests only)\n"
		"  --read-only-token T    a token that may only read (writes get 403)\n"
		"  --fault SPEC           METHOD:CODE:RATE, METHOD:latency:MS, METHOD:drop:RATE,\n"
		"                         operation:fail, create:stockout[:MACHINE_TYPE] (a\n"
		"                         create is accepted, its operation fails with 8\n"
		"                         RESOURCE_EXHAUSTED and the cluster stays in ERROR),\n"
		"                         create:invalid[:MACHINE_TYPE] (the same with 3\n"
		"                         INVALID_ARGUMENT) (repeatable; METHOD may be *)\n"
		"  --seed N               seed of the fault dice (default 1)\n"
		"  --image TYPE=IMAGE     default node image of machine TYPE (* = any type;\n"
		"                         default " EMU_DEFAULT_IMAGE ")\n"
		"  --slurm-conf PATH      regenerate this slurm.conf after each change\n"
		"                         (needs --token-file: the spec then runs as root)\n"
		"  --slurm-base FILE      the service-managed part of slurm.conf\n"
		"  --slurm-release REL    the Slurm release the cluster runs (22.05, 24.11,\n"
		"                         26.05; default the build's): slurm.conf is written\n"
		"                         for it and settings it does not know are refused\n"
		"  --reload-cmd CMD       run after regeneration (e.g. scontrol reconfigure)\n"
		"  --restart-cmd CMD      run instead when the Slurm node set changed\n"
		"  --sync-delay S         wait S seconds before running them (default 0)\n"
		"  --tls-cert FILE        serve https with this PEM certificate (and --tls-key):\n"
		"                         clients refuse plain http to a non-loopback address\n"
		"  --tls-key FILE         the certificate's PEM private key\n"
		"  --slurmrestd unix:PATH forward callSlurmRestApi to the slurmrestd on PATH\n"
		"  -v, --verbose          log requests and commands on stderr\n"
		"  -h, --help             this help\n"
		"  -V, --version          print the version\n");
}

static int emu_parse_double(const char *opt, const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	if (errno || *end || end == s || *out < 0) {
		mdc_error("invalid %s '%s': expected a non-negative number", opt, s);
		return -1;
	}
	return 0;
}

static const struct {
	const char *name;
	enum emu_fault_kind kind;
} emu_fault_words[] = {
	{ "latency", EMU_FAULT_LATENCY },
	{ "drop", EMU_FAULT_DROP },
};

static int emu_parse_fault(struct emu *e, const char *spec)
{
	struct emu_fault f = { .kind = EMU_FAULT_CODE };
	char buf[128], *what, *arg, *end;
	bool known = false;

	if (!strcmp(spec, "operation:fail")) {
		e->op_fail = true;
		return 0;
	}
	if (!strncmp(spec, "create:", 7)) {
		static const struct { const char *word; int code; } kinds[] = {
			{ "stockout", 8 }, { "invalid", 3 },
		};
		const char *kind = spec + 7, *type = strchr(kind, ':');
		size_t n = type ? (size_t) (type - kind) : strlen(kind);
		struct emu_create_fault *cf;

		if (e->ncreate_faults >= EMU_MAX_FAULTS || (type && strlen(type + 1) >= sizeof(cf->machine_type)))
			goto bad;
		cf = &e->create_faults[e->ncreate_faults];
		cf->code = 0;
		for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
			if (strlen(kinds[i].word) == n && !strncmp(kind, kinds[i].word, n))
				cf->code = kinds[i].code;
		if (!cf->code)
			goto bad;
		snprintf(cf->machine_type, sizeof(cf->machine_type), "%s", type ? type + 1 : "");
		e->ncreate_faults++;
		return 0;
	}
	if (e->nfaults >= EMU_MAX_FAULTS || strlen(spec) >= sizeof(buf))
		goto bad;
	strcpy(buf, spec);
	what = strchr(buf, ':');
	if (!what)
		goto bad;
	*what++ = '\0';
	arg = strchr(what, ':');
	if (!arg || !buf[0] || strlen(buf) >= sizeof(f.method))
		goto bad;
	*arg++ = '\0';
	strcpy(f.method, buf);
	for (size_t i = 0; i < sizeof(emu_fault_words) / sizeof(emu_fault_words[0]); i++)
		if (!strcasecmp(what, emu_fault_words[i].name)) {
			f.kind = emu_fault_words[i].kind;
			known = true;
		}
	if (!known) {
		f.code = (int) strtol(what, &end, 10);
		if (*end || f.code < 400 || f.code > 599)
			goto bad;
	}
	errno = 0;
	if (f.kind == EMU_FAULT_LATENCY) {
		f.ms = (int) strtol(arg, &end, 10);
		if (*end || f.ms < 0)
			goto bad;
	} else {
		f.rate = strtod(arg, &end);
		if (*end || end == arg || f.rate < 0 || f.rate > 1)
			goto bad;
	}
	e->faults[e->nfaults++] = f;
	return 0;
bad:
	mdc_error("invalid --fault '%s': expected METHOD:CODE:RATE (GET:503:0.3), METHOD:latency:MS, "
		  "METHOD:drop:RATE, operation:fail or create:stockout|invalid[:MACHINE_TYPE]", spec);
	return -1;
}

static int emu_parse_image(struct emu *e, const char *spec)
{
	const char *eq = strchr(spec, '=');
	char type[256];

	if (!eq || eq == spec || !eq[1] || (size_t) (eq - spec) >= sizeof(type)) {
		mdc_error("invalid --image '%s': expected MACHINE_TYPE=IMAGE", spec);
		return -1;
	}
	memcpy(type, spec, (size_t) (eq - spec));
	type[eq - spec] = '\0';
	json_object_object_add(e->images, type, json_object_new_string(eq + 1));
	return 0;
}

/* The largest token file read: an OAuth access token is ~2 KB. */
#define EMU_TOKEN_MAX 4096

/* Read the bearer token from PATH: a regular file of this user that no
 * one else may read (as ssh does with keys), so the token never appears
 * in argv (/proc/PID/cmdline is world-readable).  *OUT is malloc'ed. */
static int emu_read_token_file(const char *path, char **out)
{
	char buf[EMU_TOKEN_MAX + 1];
	struct stat st;
	ssize_t n;
	size_t len = 0;
	int fd, rc = -1;

	*out = NULL;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		mdc_error("cannot open --token-file '%s': %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		mdc_error("--token-file '%s' is not a regular file", path);
		goto out;
	}
	if (st.st_uid != geteuid() || (st.st_mode & 077)) {
		mdc_error("--token-file '%s' must belong to this user and be readable by no one "
			  "else (chmod 600)", path);
		goto out;
	}
	while (len < sizeof(buf) - 1 && (n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += (size_t) n;
	buf[len] = '\0';
	while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r' || buf[len - 1] == ' '))
		buf[--len] = '\0';
	if (!len || len >= EMU_TOKEN_MAX || mdc_has_ctrl(buf) || strchr(buf, ' ')) {
		mdc_error("--token-file '%s': expected one token of 1 to %d printable characters "
			  "without spaces", path, EMU_TOKEN_MAX - 1);
		goto out;
	}
	if (!(*out = strdup(buf))) {
		mdc_error("out of memory");
		goto out;
	}
	rc = 0;
out:
	memset(buf, 0, sizeof(buf));
	close(fd);
	return rc;
}

enum {
	OPT_LISTEN = 256, OPT_STATE, OPT_LOG, OPT_LRO, OPT_TOKEN, OPT_TOKEN_FILE, OPT_RO_TOKEN, OPT_FAULT,
	OPT_SEED, OPT_IMAGE, OPT_CONF, OPT_BASE, OPT_RELOAD, OPT_RESTART, OPT_SYNC, OPT_TLS_CERT,
	OPT_TLS_KEY, OPT_SLURMREST, OPT_RELEASE,
};

static const struct option emu_opts[] = {
	{ "listen", required_argument, NULL, OPT_LISTEN },
	{ "state", required_argument, NULL, OPT_STATE },
	{ "request-log", required_argument, NULL, OPT_LOG },
	{ "lro-seconds", required_argument, NULL, OPT_LRO },
	{ "token", required_argument, NULL, OPT_TOKEN },
	{ "token-file", required_argument, NULL, OPT_TOKEN_FILE },
	{ "read-only-token", required_argument, NULL, OPT_RO_TOKEN },
	{ "fault", required_argument, NULL, OPT_FAULT },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "image", required_argument, NULL, OPT_IMAGE },
	{ "slurm-conf", required_argument, NULL, OPT_CONF },
	{ "slurm-base", required_argument, NULL, OPT_BASE },
	{ "slurm-release", required_argument, NULL, OPT_RELEASE },
	{ "reload-cmd", required_argument, NULL, OPT_RELOAD },
	{ "restart-cmd", required_argument, NULL, OPT_RESTART },
	{ "sync-delay", required_argument, NULL, OPT_SYNC },
	{ "tls-cert", required_argument, NULL, OPT_TLS_CERT },
	{ "tls-key", required_argument, NULL, OPT_TLS_KEY },
	{ "slurmrestd", required_argument, NULL, OPT_SLURMREST },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

int main(int argc, char **argv)
{
	static struct emu e;
	const char *listen = NULL, *log_path = NULL;
	char *file_token = NULL;
	struct sigaction sa;
	struct mdc_ctx ctx;
	int c, rc = 2;

	mdc_log_init("mdc-emulator");
	mdc_log_set_level(MDC_LOG_WARN);
	pthread_mutex_init(&e.lock, NULL);
	pthread_mutex_init(&e.log_lock, NULL);
	pthread_mutex_init(&e.rng_lock, NULL);
	pthread_mutex_init(&e.sync_lock, NULL);
	e.store = json_object_new_object();
	e.images = json_object_new_object();
	e.next_op = 1;
	e.lro_seconds = 0.5;
	e.rng = 1;
	e.journal_fd = -1;
	e.slurm_release = sc_rel_build();
	if (!e.store || !e.images) {
		mdc_error("out of memory");
		return 1;
	}
	while ((c = getopt_long(argc, argv, "vhV", emu_opts, NULL)) != -1) {
		switch (c) {
		case OPT_LISTEN: listen = optarg; break;
		case OPT_STATE: e.state_path = optarg; break;
		case OPT_LOG: log_path = optarg; break;
		case OPT_LRO:
			if (emu_parse_double("--lro-seconds", optarg, &e.lro_seconds))
				goto out;
			break;
		case OPT_TOKEN: e.token = optarg; break;
		case OPT_TOKEN_FILE:
			free(file_token);
			if (emu_read_token_file(optarg, &file_token))
				goto out;
			e.token = file_token;
			break;
		case OPT_RO_TOKEN: e.ro_token = optarg; break;
		case OPT_FAULT:
			if (emu_parse_fault(&e, optarg))
				goto out;
			break;
		case OPT_SEED: {
			char *end;

			e.rng = strtoull(optarg, &end, 10);
			if (*end || end == optarg) {
				mdc_error("invalid --seed '%s': expected an integer", optarg);
				goto out;
			}
			/* xorshift needs a non-zero state */
			e.rng = e.rng * 0x9E3779B97F4A7C15ULL + 1;
			break;
		}
		case OPT_IMAGE:
			if (emu_parse_image(&e, optarg))
				goto out;
			break;
		case OPT_CONF: e.slurm_conf = optarg; break;
		case OPT_BASE: e.slurm_base = optarg; break;
		case OPT_RELEASE:
			if ((e.slurm_release = sc_rel_parse(optarg)) < 0) {
				mdc_error("invalid --slurm-release '%s': expected %s, %s or %s", optarg,
					  sc_rel_name(0), sc_rel_name(1), sc_rel_name(2));
				goto out;
			}
			break;
		case OPT_RELOAD: e.reload_cmd = optarg; break;
		case OPT_RESTART: e.restart_cmd = optarg; break;
		case OPT_SYNC:
			if (emu_parse_double("--sync-delay", optarg, &e.sync_delay))
				goto out;
			break;
		case OPT_TLS_CERT:
		case OPT_TLS_KEY: {
			char **pem = c == OPT_TLS_CERT ? &e.tls_cert : &e.tls_key;
			size_t len;

			free(*pem);
			*pem = NULL;
			mdc_ctx_clear(&ctx);
			if (mdc_read_file(optarg, pem, &len, &ctx)) {
				mdc_error("%s: %s", c == OPT_TLS_CERT ? "--tls-cert" : "--tls-key", ctx.msg);
				goto out;
			}
			break;
		}
		case OPT_SLURMREST:
			if (emu_slurmrest_configure(optarg))
				goto out;
			break;
		case 'v': mdc_log_set_level(MDC_LOG_DEBUG); break;
		case 'h': emu_usage(stdout); rc = 0; goto out;
		case 'V': printf("mdc-emulator %s\n", PACKAGE_VERSION); rc = 0; goto out;
		default: emu_usage(stderr); goto out;
		}
	}
	/* the rules and value checks judge against the cluster's release too */
	sc_rel_set_target(e.slurm_release, SC_REL_FROM_CONF);
	if (optind < argc) {
		mdc_error("unexpected argument '%s'", argv[optind]);
		goto out;
	}
	if (!listen) {
		mdc_error("missing --listen HOST:PORT (e.g. 127.0.0.1:0)");
		goto out;
	}
	if (!e.tls_cert != !e.tls_key) {
		mdc_error("--tls-cert and --tls-key go together");
		goto out;
	}
	/* whoever may PATCH the spec writes slurm.conf and runs the hooks,
	 * as this (usually root) user: never without credentials */
	if ((e.slurm_conf || e.reload_cmd || e.restart_cmd) && !e.token && !e.ro_token) {
		mdc_error("--slurm-conf, --reload-cmd and --restart-cmd need --token-file FILE: "
			  "without a token any local user could change slurm.conf");
		goto out;
	}
	if (!mdc_json_get(e.images, "*"))
		json_object_object_add(e.images, "*", json_object_new_string(EMU_DEFAULT_IMAGE));
	mdc_ctx_clear(&ctx);
	if (emu_state_load(&e, &ctx)) {
		mdc_error("%s", ctx.msg);
		rc = 1;
		goto out;
	}
	if (log_path && !(e.log = fopen(log_path, "ae"))) {
		mdc_error("cannot open request log '%s': %s", log_path, strerror(errno));
		rc = 1;
		goto out;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = emu_on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	rc = emu_serve(&e, listen, &emu_stop);
	if (!rc) {
		/* a clean stop leaves one complete snapshot */
		emu_lock(&e);
		emu_state_compact(&e);
		emu_unlock(&e);
	}
out:
	if (e.log)
		fclose(e.log);
	for (size_t i = 0; i < EMU_MAX_HOOKS; i++)
		free(e.hooks[i].op);
	emu_state_free(&e);
	json_object_put(e.store);
	json_object_put(e.images);
	free(e.tls_cert);
	if (e.tls_key) {
		memset(e.tls_key, 0, strlen(e.tls_key));
		free(e.tls_key);
	}
	if (file_token) {
		memset(file_token, 0, strlen(file_token));
		free(file_token);
	}
	return rc;
}
