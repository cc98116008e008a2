/*
 * postern-ci: CI releases with the job's OIDC ID token (issue 28).
 *
 *   postern-ci [-C FILE] [--foreground] [--state DIR] [--staging DIR]
 *       serves POST /v1/release on ci.listen (http_release.h), as the
 *       postern-ci user, never as root;
 *   postern-ci [-C FILE] --refresh-jwks [--issuer NAME] [--cacert FILE] [--timeout S]
 *       refreshes the issuers' keys, which a timer runs as root.
 */
#define _GNU_SOURCE
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "build_config.h"
#include "http_release.h"
#include "jti_store.h"
#include "jwks_refresh.h"
#include "policy.h"

#define PROG "postern-ci"
#define CI_STATE_DIR "/var/lib/postern-ci/jti"
#define CI_STAGING_DIR "/var/lib/postern-ci/uploads"
/* How often the used-token store forgets expired tokens. */
#define CI_PRUNE_SECONDS 300

struct args {
	const char *config, *issuer, *cacert, *state, *staging;
	long timeout;
	bool refresh, refresh_only;
};

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: " PROG " [-C FILE] [--foreground] [--state DIR] [--staging DIR]\n"
		"       " PROG " [-C FILE] --refresh-jwks [--issuer NAME] [--cacert FILE] "
		"[--timeout SECONDS]\n"
		"Serve CI releases: POST /v1/release on ci.listen, with the job's OIDC ID token\n"
		"as Authorization: Bearer and the files as multipart/form-data parts named file.\n"
		"It runs as the postern-ci user, never as root, in the foreground.\n"
		"  --state DIR         the used-token store (default " CI_STATE_DIR ")\n"
		"  --staging DIR       where uploads are staged (default " CI_STAGING_DIR ")\n"
		"With --refresh-jwks: fetch the signing keys (JWKS) of each CI issuer in ci.issuers (or of NAME\n"
		"only) through its OpenID discovery document, over https, and replace its jwks\n"
		"file atomically when they changed and are usable; a failure keeps the old file.\n"
		"--cacert names a CA bundle for a forge with its own CA (default: the system's).\n"
		"  -C, --config FILE   the configuration (default " POSTERN_CONFIG_FILE ")\n"
		"  -h, --help          this text\n"
		"Exit status: 0 all refreshed (or unchanged) or served until stopped, 1 an\n"
		"error (an issuer failed, or the server could not start), 2 usage.\n");
}

static int parse_args(int argc, char **argv, struct args *a)
{
	static const struct option longs[] = {
		{ "config", required_argument, NULL, 'C' },
		{ "refresh-jwks", no_argument, NULL, 'r' },
		{ "issuer", required_argument, NULL, 'i' },
		{ "cacert", required_argument, NULL, 'c' },
		{ "timeout", required_argument, NULL, 't' },
		{ "foreground", no_argument, NULL, 'f' },
		{ "state", required_argument, NULL, 's' },
		{ "staging", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int opt;

	while ((opt = getopt_long(argc, argv, "C:h", longs, NULL)) != -1) {
		switch (opt) {
		case 'C': a->config = optarg; break;
		case 'r': a->refresh = true; break;
		case 'i': a->issuer = optarg; a->refresh_only = true; break;
		case 'c': a->cacert = optarg; a->refresh_only = true; break;
		case 'f': break;   /* it always is: systemd keeps it, nothing forks */
		case 's': a->state = optarg; break;
		case 'S': a->staging = optarg; break;
		case 't':
			a->refresh_only = true;
			a->timeout = strtol(optarg, &end, 10);
			if (*end != '\0' || a->timeout < 1 || a->timeout > 3600) {
				fprintf(stderr, PROG ": --timeout: expected seconds from 1 to 3600\n");
				return 2;
			}
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, PROG ": unexpected operand '%s' (see --help)\n", argv[optind]);
		return 2;
	}
	if (a->refresh_only && !a->refresh) {
		fprintf(stderr, PROG ": --issuer, --cacert and --timeout go with --refresh-jwks\n");
		return 2;
	}
	return -1;
}

static int refresh_all(const struct policy_settings *s, const struct args *a)
{
	const struct jwks_fetch f = { a->cacert, a->timeout };
	size_t i, nkeys, done = 0;
	int status = 0;

	for (i = 0; i < s->ci_nissuers; i++) {
		const struct policy_ci_issuer *is = &s->ci_issuers[i];
		struct pst_err e;
		bool changed;

		if (a->issuer != NULL && strcmp(a->issuer, is->name) != 0)
			continue;
		done++;
		if (jwks_refresh(is, &f, &changed, &nkeys, &e) < 0) {
			fprintf(stderr, PROG ": %s\n", e.msg);
			status = 1;
			continue;
		}
		printf("%s: %zu signing key%s, %s %s\n", is->name, nkeys, nkeys == 1 ? "" : "s",
		       changed ? "written to" : "unchanged in", is->jwks);
	}
	if (done == 0) {
		fprintf(stderr, PROG ": %s: no such issuer under ci.issuers in the configuration\n",
			a->issuer ? a->issuer : "(any)");
		status = 1;
	}
	return status;
}

/* The staging directory: this user's, no one else may write it, and on a
 * file system with anonymous files (O_TMPFILE), tried once now. */
static int staging_open(const char *path, struct pst_err *e)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), t;

	if (fd < 0)
		return pst_fail(e, errno, "--staging %s: %s", path, strerror(errno));
	if (fstat(fd, &st) != 0 || st.st_uid != geteuid() || (st.st_mode & 022) != 0) {
		close(fd);
		return pst_fail(e, EPERM, "--staging %s: must be a directory of this user that "
				"no one else may write", path);
	}
	t = openat(fd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (t < 0) {
		int err = errno;

		close(fd);
		return pst_fail(e, err, "--staging %s: no anonymous file can be made there (%s): "
				"use a directory on ext4, xfs, btrfs or tmpfs", path, strerror(err));
	}
	close(t);
	return fd;
}

/* Until SIGTERM, SIGINT or SIGHUP, forgetting expired tokens now and then. */
static void serve_until_signal(const sigset_t *stop, struct jti_store *jti)
{
	const struct timespec every = { CI_PRUNE_SECONDS, 0 };
	struct pst_err e;

	for (;;) {
		int sig = sigtimedwait(stop, NULL, &every);

		if (sig > 0)
			return;
		if (sig < 0 && errno != EAGAIN && errno != EINTR)
			return;
		if (sig < 0 && errno == EAGAIN && jti_store_prune(jti, time(NULL), CI_CLOCK_SKEW, &e) < 0)
			fprintf(stderr, PROG ": %s\n", e.msg);
	}
}

static int serve(const struct args *a, struct policy *p)
{
	struct http_release_config cfg = { p, NULL, -1, policy_settings(p)->ci_listen };
	struct http_release *h = NULL;
	struct jti_store jti;
	struct pst_err e = { "" };
	sigset_t stop;

	if (cfg.listen == NULL || policy_settings(p)->ci_nissuers == 0) {
		fprintf(stderr, PROG ": %s: no ci.listen or no ci.issuers: nothing to serve; "
			"configure them first (DEPLOY.md, \"Releasing from CI\")\n", a->config);
		return 1;
	}
	if (jti_store_open(a->state, &jti, &e) < 0) {
		fprintf(stderr, PROG ": %s\n", e.msg);
		return 1;
	}
	cfg.jti = &jti;
	cfg.staging_fd = staging_open(a->staging, &e);
	if (cfg.staging_fd < 0) {
		fprintf(stderr, PROG ": %s\n", e.msg);
		jti_store_close(&jti);
		return 1;
	}
	if (jti_store_prune(&jti, time(NULL), CI_CLOCK_SKEW, &e) < 0)
		fprintf(stderr, PROG ": %s\n", e.msg);
	/* Blocked before the threads start, so that they inherit the mask and
	 * only sigtimedwait takes these; a handoff to a daemon that went away
	 * must see EPIPE, not die of it. */
	sigemptyset(&stop);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &stop, NULL) != 0 || signal(SIGPIPE, SIG_IGN) == SIG_ERR ||
	    http_release_start(&cfg, &h, &e) < 0) {
		fprintf(stderr, PROG ": %s\n", e.msg[0] ? e.msg : "cannot start the server");
		close(cfg.staging_fd);
		jti_store_close(&jti);
		return 1;
	}
	fprintf(stderr, PROG ": ready: listening on %s\n", cfg.listen);
	serve_until_signal(&stop, &jti);
	http_release_stop(h);
	close(cfg.staging_fd);
	jti_store_close(&jti);
	return 0;
}

static int refresh(const struct args *a)
{
	struct policy *p = NULL;
	struct pst_err e;
	int status;

	if (policy_load_settings(a->config, &p, &e) < 0) {
		fprintf(stderr, PROG ": %s\n", e.msg);
		return 1;
	}
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		fprintf(stderr, PROG ": libcurl could not start\n");
		policy_free(p);
		return 1;
	}
	status = refresh_all(policy_settings(p), a);
	curl_global_cleanup();
	policy_free(p);
	return status;
}

int main(int argc, char **argv)
{
	struct args a = { POSTERN_CONFIG_FILE, NULL, NULL, CI_STATE_DIR, CI_STAGING_DIR, 30,
			  false, false };
	struct policy *p = NULL;
	struct pst_err e;
	int status = parse_args(argc, argv, &a);

	if (status >= 0)
		return status;
	if (a.refresh)
		return refresh(&a);
	if (getuid() == 0 || geteuid() == 0) {
		fprintf(stderr, PROG ": refusing to serve as root: run it as the postern-ci user "
			"(its systemd unit does)\n");
		return 1;
	}
	openlog(PROG, LOG_PID, LOG_AUTHPRIV);
	/* The modules too: the CI bindings are decided on them. */
	if (policy_load(a.config, &p, &e) < 0) {
		fprintf(stderr, PROG ": %s\n", e.msg);
		return 1;
	}
	status = serve(&a, p);
	policy_free(p);
	return status;
}
