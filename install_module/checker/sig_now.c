/*
 * Reading gpgv's status lines (see sig_now.h).
 *
 * Design note. gpgv's --status-fd output carries text the signer chose
 * (the user ID after GOODSIG), and status-line injection has happened
 * before (CVE-2018-12020, CVE-2022-34903). So the lines are only a veto:
 * the pass itself rests on sqv; here only fixed keywords at the start of a
 * line are counted, a pass needs each expected keyword exactly once, and
 * any bad keyword anywhere refuses. An injected line can therefore only
 * turn a pass into a refusal, never the other way.
 *
 * MUST NOT: quote anything from the output but the signer's fingerprint
 * sqv gave.
 */
#include "sig_now.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>


/* Status output beyond this is not read (and is no pass). */
#define STATUS_MAX 8192
#define STATUS_PREFIX "[GNUPG:] "

/* The keywords counted; every other one is ignored. */
enum keyword { K_NEWSIG, K_GOODSIG, K_VALIDSIG, K_EXPKEYSIG, K_REVKEYSIG, K_EXPSIG, K_BADSIG,
	       K_ERRSIG, K_NO_PUBKEY, K_COUNT };

static const char *const keyword_names[K_COUNT] = {
	"NEWSIG", "GOODSIG", "VALIDSIG", "EXPKEYSIG", "REVKEYSIG", "EXPSIG", "BADSIG", "ERRSIG",
	"NO_PUBKEY",
};

struct status_counts {
	unsigned seen[K_COUNT];
	bool validsig_is_signer;   /* the (last) VALIDSIG names signer as its primary key */
};

/* The n-th space-separated field (0: the keyword) of line into out, "" if absent. */
static void field(const char *line, size_t len, int n, char *out, size_t out_size)
{
	size_t i = 0, start;

	out[0] = '\0';
	for (; n > 0 && i < len; n--) {
		while (i < len && line[i] != ' ')
			i++;
		while (i < len && line[i] == ' ')
			i++;
	}
	start = i;
	while (i < len && line[i] != ' ')
		i++;
	if (i > start && i - start < out_size) {
		memcpy(out, line + start, i - start);
		out[i - start] = '\0';
	}
}

/* VALIDSIG's eleventh field is the primary key's fingerprint. */
#define VALIDSIG_PRIMARY_FIELD 10

static void line_count(const char *line, size_t len, const char *signer, struct status_counts *c)
{
	char word[32], fpr[CHECK_FINGERPRINT_MAX + 2];
	int k;

	if (len < sizeof(STATUS_PREFIX) - 1 || memcmp(line, STATUS_PREFIX, sizeof(STATUS_PREFIX) - 1) != 0)
		return;
	line += sizeof(STATUS_PREFIX) - 1;
	len -= sizeof(STATUS_PREFIX) - 1;
	field(line, len, 0, word, sizeof(word));
	for (k = 0; k < K_COUNT; k++)
		if (strcmp(word, keyword_names[k]) == 0)
			break;
	if (k == K_COUNT)
		return;
	c->seen[k]++;
	if (k == K_VALIDSIG) {
		field(line, len, VALIDSIG_PRIMARY_FIELD, fpr, sizeof(fpr));
		c->validsig_is_signer = strcmp(fpr, signer) == 0;
	}
}

static void status_count(const char *status, size_t len, const char *signer, struct status_counts *c)
{
	const char *line = status, *end = status + len, *nl;

	memset(c, 0, sizeof(*c));
	while (line < end) {
		nl = memchr(line, '\n', (size_t)(end - line));
		if (nl == NULL)
			nl = end;
		line_count(line, (size_t)(nl - line), signer, c);
		line = nl + 1;
	}
}

static bool status_pass(const struct status_counts *c)
{
	return c->seen[K_NEWSIG] == 1 && c->seen[K_GOODSIG] == 1 && c->seen[K_VALIDSIG] == 1 &&
	       c->validsig_is_signer && c->seen[K_EXPKEYSIG] == 0 && c->seen[K_REVKEYSIG] == 0 &&
	       c->seen[K_EXPSIG] == 0 && c->seen[K_BADSIG] == 0 && c->seen[K_ERRSIG] == 0;
}

static void refusal_explain(const struct status_counts *c, const char *signer, struct sig_result *r)
{
	if (c->seen[K_EXPKEYSIG] > 0)
		sig_say(r, CHECK_REFUSED, "the key that made the signature (%s) has expired since: a "
		    "signature is accepted only from a key that is valid now (extend its expiry "
		    "with gpg --quick-set-expire and have the admins update your keyring, or sign "
		    "with your current key)", signer);
	else if (c->seen[K_REVKEYSIG] > 0)
		sig_say(r, CHECK_REFUSED, "the key that made the signature (%s) has been revoked since "
		    "it signed (as superseded or retired): sign again with the key that replaced "
		    "it, and have the admins put that key in your keyring", signer);
	else if (c->seen[K_EXPSIG] > 0)
		sig_say(r, CHECK_REFUSED, "the signature has expired (it was made with an expiry date): "
		    "sign again without one");
	else if (c->seen[K_NEWSIG] > 1)
		sig_say(r, CHECK_REFUSED, "the signature file holds more than one signature: sign with "
		    "one key only (gpg --detach-sign with a single -u)");
	else
		sig_say(r, CHECK_REFUSED, "gpgv could not confirm that the key that made the signature "
		    "(%s) is valid now (check with: gpgv --keyring YOUR-KEYRING SIGNATURE FILE; if "
		    "it verifies there, tell the server's admins)", signer);
}

void sig_now_read(int wait_status, const char *status, size_t len, int truncated,
		  const char *signer, struct sig_result *r)
{
	struct status_counts c;

	memset(r, 0, sizeof(*r));
	if (sig_tool_ended_badly(wait_status, "gpgv", SIG_NOW_VERIFIER_PATH, "gpgv", r))
		return;
	if (truncated || len > STATUS_MAX) {
		sig_say(r, CHECK_REFUSED, "gpgv said more about this signature than a single signature "
		    "needs: sign again with gpg --detach-sign and one key");
		return;
	}
	status_count(status, len, signer, &c);
	if (WEXITSTATUS(wait_status) == 0 && status_pass(&c)) {
		r->outcome = CHECK_PASS;
		snprintf(r->signer, sizeof(r->signer), "%s", signer);
		return;
	}
	refusal_explain(&c, signer, r);
}
