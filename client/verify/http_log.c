/* Reading a log over HTTP(S) (http_log.h). */
#include "http_log.h"

#include <curl/curl.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http_body.h"

#define URL_MAX 4096

struct http_log {
	CURL *curl;
	char base[URL_MAX];
};

int http_log_open(const char *url, struct http_log **out, struct pst_err *e)
{
	struct http_log *h;
	size_t len = strlen(url);

	if ((strncmp(url, "https://", 8) != 0 && strncmp(url, "http://", 7) != 0) ||
	    len + 1 >= URL_MAX)
		return pst_fail(e, EINVAL, "%s: a log URL is http:// or https://", url);
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		return pst_fail(e, EIO, "libcurl could not start");
	h = calloc(1, sizeof(*h));
	if (h == NULL || (h->curl = curl_easy_init()) == NULL) {
		free(h);
		return pst_fail(e, ENOMEM, "libcurl could not start");
	}
	memcpy(h->base, url, len + 1);
	while (len > 0 && h->base[len - 1] == '/')
		h->base[--len] = '\0';
	curl_easy_setopt(h->curl, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(h->curl, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(h->curl, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(h->curl, CURLOPT_MAXREDIRS, 5L);
	curl_easy_setopt(h->curl, CURLOPT_CONNECTTIMEOUT, 30L);
	/* A stalled mirror must not hang a cron job: under 1 kB/s for 60 s ends the transfer. */
	curl_easy_setopt(h->curl, CURLOPT_LOW_SPEED_LIMIT, 1024L);
	curl_easy_setopt(h->curl, CURLOPT_LOW_SPEED_TIME, 60L);
	curl_easy_setopt(h->curl, CURLOPT_USERAGENT, "postern-verify");
	curl_easy_setopt(h->curl, CURLOPT_WRITEFUNCTION, http_body_take);
	*out = h;
	return 0;
}

void http_log_close(struct http_log *h)
{
	if (h == NULL)
		return;
	curl_easy_cleanup(h->curl);
	free(h);
	curl_global_cleanup();
}

int http_log_read(void *arg, const char *path, size_t max, unsigned char **data, size_t *len,
		  struct pst_err *e)
{
	struct http_log *h = arg;
	struct http_body b = {.max = max};
	char url[URL_MAX + 128];
	long status = 0;
	CURLcode rc;

	if ((size_t)snprintf(url, sizeof(url), "%s/%s", h->base, path) >= sizeof(url))
		return pst_fail(e, ENAMETOOLONG, "%s/%s: URL too long", h->base, path);
	curl_easy_setopt(h->curl, CURLOPT_URL, url);
	curl_easy_setopt(h->curl, CURLOPT_WRITEDATA, &b);
	curl_easy_setopt(h->curl, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)max);
	rc = curl_easy_perform(h->curl);
	curl_easy_getinfo(h->curl, CURLINFO_RESPONSE_CODE, &status);
	if (rc == CURLE_OK && status == 200) {
		*data = b.data != NULL ? b.data : calloc(1, 1);
		*len = b.len;
		return *data == NULL ? pst_fail(e, ENOMEM, "out of memory") : 0;
	}
	free(b.data);
	if (rc == CURLE_OK && status == 404)
		return pst_fail(e, ENOENT, "%s: not found (404); the log is the tree's log/ directory "
				"on the mirror", url);
	if (b.too_big || rc == CURLE_FILESIZE_EXCEEDED)
		return pst_fail(e, EFBIG, "%s: more than the %zu bytes a log file may have", url, max);
	if (rc != CURLE_OK)
		return pst_fail(e, EIO, "%s: %s", url, curl_easy_strerror(rc));
	return pst_fail(e, EIO, "%s: the server answered HTTP %ld", url, status);
}
