/*
 * postern-ci: CI releases with the job's OIDC ID token (issue 28). This
 * version has the issuers' key refresh, which a timer runs as root:
 *
 *   postern-ci [-C FILE] --refresh-jwks [--issuer NAME] [--cacert FILE] [--timeout S]
 *
 * The HTTP front-end (POST /v1/release) is not in this version.
 */
#include <curl/curl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build_config.h"
#include "jwks_refresh.h"
#include "policy.h"

#define PROG "postern-ci"

struct args {
	const char *config, *issuer, *cacert;
	long timeout;
	bool refresh;
};

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: " PROG " [-C FILE] --refresh-jwks [--issuer NAME] [--cacert FILE] "
		"[--timeout SECONDS]\n"
		"Fetch the signing keys (JWKS) of each CI issuer in ci.issuers (or of NAME\n"
		"only) through its OpenID discovery document, over https, and replace its jwks\n"
		"file atomically when they changed and are usable; a failure keeps the old file.\n"
		"--cacert names a CA bundle for a forge with its own CA (default: the system's).\n"
		"Serving CI releases over HTTP is not in this version of postern-ci.\n"
		"  -C, --config FILE   the configuration (default " POSTERN_CONFIG_FILE ")\n"
		"  -h, --help          this text\n"
		"Exit status: 0 all refreshed (or unchanged), 1 an issuer failed, 2 usage.\n");
}

static int parse_args(int argc, char **argv, struct args *a)
{
	static const struct option longs[] = {
		{ "config", required_argument, NULL, 'C' },
		{ "refresh-jwks", no_argument, NULL, 'r' },
		{ "issuer", required_argument, NULL, 'i' },
		{ "cacert", required_argument, NULL, 'c' },
		{ "timeout", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int opt;

	while ((opt = getopt_long(argc, argv, "C:h", longs, NULL)) != -1) {
		switch (opt) {
		case 'C': a->config = optarg; break;
		case 'r': a->refresh = true; break;
		case 'i': a->issuer = optarg; break;
		case 'c': a->cacert = optarg; break;
		case 't':
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
	if (!a->refresh) {
		fprintf(stderr, PROG ": nothing to do: give --refresh-jwks (this version does not "
			"serve CI releases yet)\n");
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

int main(int argc, char **argv)
{
	struct args a = { POSTERN_CONFIG_FILE, NULL, NULL, 30, false };
	struct policy *p = NULL;
	struct pst_err e;
	int status = parse_args(argc, argv, &a);

	if (status >= 0)
		return status;
	if (policy_load_settings(a.config, &p, &e) < 0) {
		fprintf(stderr, PROG ": %s\n", e.msg);
		return 1;
	}
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		fprintf(stderr, PROG ": libcurl could not start\n");
		policy_free(p);
		return 1;
	}
	status = refresh_all(policy_settings(p), &a);
	curl_global_cleanup();
	policy_free(p);
	return status;
}
