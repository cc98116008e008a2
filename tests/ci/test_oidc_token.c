/*
 * CI tokens minted by PyJWT in mint-tokens.py (a throwaway issuer, keys
 * made there): each case of cases.tsv is verified at the minting script's
 * "now" and must give exactly the expected identity, or a refusal with the
 * expected words; each JWKS of jwks-cases.tsv must be refused.
 *
 * Usage: test_oidc_token DIR (what mint-tokens.py wrote)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oidc_token.h"

static int n, failed;

static void result(int good, const char *what, const char *why)
{
	printf("%sok %d - %s\n", good ? "" : "not ", ++n, what);
	if (!good) {
		printf("# %s\n", why);
		failed = 1;
	}
}

static char *slurp(const char *dir, const char *name, size_t *len)
{
	char path[4096];
	FILE *f;
	char *buf;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "rb");
	if (f == NULL)
		return NULL;
	buf = malloc(1 << 20);
	*len = buf ? fread(buf, 1, (1 << 20) - 1, f) : 0;
	if (buf)
		buf[*len] = '\0';
	fclose(f);
	return buf;
}

static void describe(const struct oidc_claims *c, char *out, size_t size)
{
	snprintf(out, size, "ok project=%s ref=%s ref_type=%s protected=%d pipeline=%s job=%s user=%s",
		 c->project, c->ref, c->ref_type, c->ref_protected, c->pipeline, c->job, c->user);
}

static void token_case(const char *dir, const struct oidc_jwks *keys, time_t now, char *line)
{
	static const struct oidc_issuer gitlab = {
		"gitlab", "https://gitlab.example.org", "https://release.example.org", OIDC_GITLAB,
		60, 3600,
	};
	static const struct oidc_issuer github = {
		"github", "https://token.actions.githubusercontent.com", "https://release.example.org",
		OIDC_GITHUB, 60, 3600,
	};
	char *name = strtok(line, "\t"), *forge = strtok(NULL, "\t"), *expect = strtok(NULL, "\n");
	char file[512], got[1024];
	struct oidc_claims c;
	struct pst_err e = { "" };
	size_t len = 0;
	char *token;
	int rc;

	if (name == NULL || forge == NULL || expect == NULL) {
		result(0, "a case line", "malformed cases.tsv");
		return;
	}
	snprintf(file, sizeof(file), "%s.jwt", name);
	token = slurp(dir, file, &len);
	if (token == NULL) {
		result(0, name, "no token file");
		return;
	}
	rc = oidc_token_verify(token, len, strcmp(forge, "github") == 0 ? &github : &gitlab, keys,
			       now, &c, &e);
	if (rc == 0)
		describe(&c, got, sizeof(got));
	else
		snprintf(got, sizeof(got), "refused: %s", e.msg);
	if (strncmp(expect, "ok ", 3) == 0)
		result(rc == 0 && strcmp(got, expect) == 0, name, got);
	else
		result(rc < 0 && strstr(e.msg, expect) != NULL && c.project[0] == '\0', name, got);
	free(token);
}

static void jwks_case(const char *dir, char *line)
{
	char *name = strtok(line, "\t"), *words = strtok(NULL, "\n");
	char file[512], what[600];
	struct oidc_jwks k;
	struct pst_err e = { "" };
	size_t len = 0;
	char *text;
	int rc;

	if (name == NULL || words == NULL) {
		result(0, "a JWKS case line", "malformed jwks-cases.tsv");
		return;
	}
	snprintf(file, sizeof(file), "jwks-%s.json", name);
	snprintf(what, sizeof(what), "JWKS refused: %s", name);
	text = slurp(dir, file, &len);
	rc = text ? oidc_jwks_parse(text, len, file, &k, &e) : 0;
	result(text != NULL && rc == -EINVAL && strstr(e.msg, words) != NULL && k.n == 0, what,
	       e.msg);
	free(text);
}

static void each_line(const char *dir, const char *name, void (*fn)(const char *, char *, void *),
		      void *arg)
{
	size_t len;
	char *text = slurp(dir, name, &len), *line, *next;

	if (text == NULL) {
		result(0, name, "missing");
		return;
	}
	for (line = text; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		fn(dir, line, arg);
	}
	free(text);
}

struct token_run { const struct oidc_jwks *keys; time_t now; };

static void token_line(const char *dir, char *line, void *arg)
{
	const struct token_run *r = arg;
	token_case(dir, r->keys, r->now, line);
}

static void jwks_line(const char *dir, char *line, void *arg)
{
	(void)arg;
	jwks_case(dir, line);
}

int main(int argc, char **argv)
{
	struct oidc_jwks keys;
	struct pst_err e = { "" };
	struct token_run r;
	size_t len;
	char *jwks, *now;

	if (argc != 2) {
		fprintf(stderr, "usage: test_oidc_token DIR\n");
		return 2;
	}
	jwks = slurp(argv[1], "jwks.json", &len);
	now = slurp(argv[1], "now", &(size_t){ 0 });
	if (jwks == NULL || now == NULL || oidc_jwks_parse(jwks, len, "jwks.json", &keys, &e) < 0) {
		printf("Bail out! the minted JWKS cannot be read: %s\n", e.msg);
		return 1;
	}
	result(keys.n == 2, "the JWKS keeps the RSA and the EC key, skips the HMAC one", "key count");
	r.keys = &keys;
	r.now = (time_t)strtoll(now, NULL, 10);
	each_line(argv[1], "cases.tsv", token_line, &r);
	each_line(argv[1], "jwks-cases.tsv", jwks_line, NULL);
	oidc_jwks_free(&keys);
	free(jwks);
	free(now);
	printf("1..%d\n", n);
	return failed;
}
