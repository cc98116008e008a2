/* An issuer's JWKS, fetched and installed (jwks_refresh.h). */
#include "jwks_refresh.h"

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "http_body.h"
#include "oidc_jwks.h"
#include "safefile.h"

#define DISCOVERY_MAX (64 * 1024)
#define URL_MAX 2048

/* GET url over https into *body (at most max bytes). */
static int https_get(const char *url, const struct jwks_fetch *f, size_t max,
		     struct http_body *body, struct pst_err *e)
{
	CURL *c = curl_easy_init();
	long status = 0;
	CURLcode rc;

	memset(body, 0, sizeof(*body));
	body->max = max;
	if (c == NULL)
		return pst_fail(e, ENOMEM, "libcurl could not start");
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "https");
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, f->timeout);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "postern-ci");
	curl_easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)max);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, http_body_take);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, body);
	if (f->cacert != NULL)
		curl_easy_setopt(c, CURLOPT_CAINFO, f->cacert);
	rc = curl_easy_perform(c);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	curl_easy_cleanup(c);
	if (rc == CURLE_OK && status == 200 && body->data != NULL)
		return 0;
	free(body->data);
	body->data = NULL;
	if (body->too_big || rc == CURLE_FILESIZE_EXCEEDED)
		return pst_fail(e, EFBIG, "%s: larger than %zu bytes", url, max);
	if (rc != CURLE_OK)
		return pst_fail(e, EIO, "%s: %s", url, curl_easy_strerror(rc));
	return pst_fail(e, EIO, "%s: the server answered HTTP %ld", url, status);
}

/* The jwks_uri of the discovery document, which must be is's own. */
static int discover(const struct policy_ci_issuer *is, const struct jwks_fetch *f,
		    char *jwks_uri, size_t size, struct pst_err *e)
{
	char url[URL_MAX];
	size_t len = strlen(is->issuer);
	struct http_body b;
	json_t *doc;
	const char *iss, *uri;
	int rc;

	while (len > 0 && is->issuer[len - 1] == '/')
		len--;
	if ((size_t)snprintf(url, sizeof(url), "%.*s/.well-known/openid-configuration", (int)len,
			     is->issuer) >= sizeof(url))
		return pst_fail(e, ENAMETOOLONG, "%s: the issuer URL is too long", is->issuer);
	rc = https_get(url, f, DISCOVERY_MAX, &b, e);
	if (rc < 0)
		return rc;
	doc = json_loadb((const char *)b.data, b.len, JSON_REJECT_DUPLICATES, NULL);
	free(b.data);
	iss = json_string_value(json_object_get(doc, "issuer"));
	uri = json_string_value(json_object_get(doc, "jwks_uri"));
	if (iss == NULL || strcmp(iss, is->issuer) != 0)
		rc = pst_fail(e, EPROTO, "%s: its issuer is not %s (check ci.issuers.%s.issuer)", url,
			      is->issuer, is->name);
	else if (uri == NULL || strncmp(uri, "https://", 8) != 0 || strlen(uri) >= size)
		rc = pst_fail(e, EPROTO, "%s: no https:// jwks_uri in it", url);
	else
		memcpy(jwks_uri, uri, strlen(uri) + 1);
	json_decref(doc);
	return rc;
}

/* The file's directory, trusted like the policy's, and its base name. */
static int open_parent(const char *path, const char **base, struct pst_err *e)
{
	static const struct sf_rule dir_rule = {
		.type = S_IFDIR, .uid = 0, .gid = SF_ANY_GID, .forbid = 022, .max_size = 0,
	};
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');

	if (slash == NULL || (size_t)(slash - path) >= sizeof(dir))
		return pst_fail(e, EINVAL, "%s: not an absolute path", path);
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash - path] = '\0';
	*base = slash + 1;
	return sf_open_dir_path(dir[0] ? dir : "/", &dir_rule, SF_TRUSTED_PATH, e);
}

/* Whether dirfd/base already holds exactly text. */
static bool same_content(int dirfd, const char *base, const unsigned char *text, size_t len)
{
	static const struct sf_rule rule = {
		.type = S_IFREG, .uid = 0, .gid = SF_ANY_GID, .forbid = 022,
		.max_size = OIDC_JWKS_FILE_MAX,
	};
	int fd = sf_openat(dirfd, base, O_RDONLY, &rule, NULL, NULL);
	char *old = NULL;
	size_t old_len = 0;
	bool same;

	if (fd < 0)
		return false;
	same = sf_read_all(fd, OIDC_JWKS_FILE_MAX, &old, &old_len, NULL) == 0 && old_len == len &&
	       memcmp(old, text, len) == 0;
	close(fd);
	free(old);
	return same;
}

int jwks_refresh(const struct policy_ci_issuer *is, const struct jwks_fetch *f, bool *changed,
		 size_t *nkeys, struct pst_err *e)
{
	static const struct sf_new how = { .mode = 0644, .uid = 0, .gid = 0 };
	char uri[URL_MAX];
	struct http_body b = { 0 };
	struct oidc_jwks keys;
	const char *base = NULL;
	int dirfd, rc;

	*changed = false;
	*nkeys = 0;
	rc = discover(is, f, uri, sizeof(uri), e);
	if (rc == 0)
		rc = https_get(uri, f, OIDC_JWKS_FILE_MAX, &b, e);
	if (rc == 0 && (rc = oidc_jwks_parse((const char *)b.data, b.len, uri, &keys, e)) == 0) {
		*nkeys = keys.n;
		oidc_jwks_free(&keys);
	}
	dirfd = rc == 0 ? open_parent(is->jwks, &base, e) : -1;
	if (rc == 0 && dirfd < 0)
		rc = dirfd;
	if (rc == 0 && !same_content(dirfd, base, b.data, b.len)) {
		rc = sf_write_atomic(dirfd, base, b.data, b.len, &how, e);
		*changed = rc == 0;
	}
	if (dirfd >= 0)
		close(dirfd);
	free(b.data);
	if (rc < 0)
		pst_err_prefix(e, "ci.issuers.%s: the JWKS was not refreshed (the old file stays)",
			       is->name);
	return rc;
}
