/*
 * Reading sqv's answer (see sig_verdict.h).
 *
 * MUST: pass only on exit status 0 with well-formed fingerprints on stdout;
 * quote from the verifier's output only hex fingerprints it names, never
 * its free text (which can echo attacker-chosen bytes).
 * MUST NOT: let stderr turn a failure into a pass: stderr only chooses
 * which refusal message to give. The phrases matched are sqv 1.1's
 * (sequoia-openpgp's error texts); an unknown phrase still refuses, with a
 * general message.
 */
#define _GNU_SOURCE
#include "sig_verdict.h"

#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "text.h"

/* What the captured output is cut to before it is read. */
#define OUTPUT_MAX 8192

void sig_say(struct sig_result *r, enum check_outcome outcome, const char *fmt, ...)
{
	va_list ap;

	r->outcome = outcome;
	r->signer[0] = '\0';
	va_start(ap, fmt);
	vsnprintf(r->message, sizeof(r->message), fmt, ap);
	va_end(ap);
}

/* The output as a C string: NUL bytes become '?', cut at OUTPUT_MAX. */
static void text_of(const char *in, size_t len, char *out)
{
	size_t i;

	if (len > OUTPUT_MAX)
		len = OUTPUT_MAX;
	for (i = 0; i < len; i++)
		out[i] = in[i] == '\0' ? '?' : in[i];
	out[len] = '\0';
}

static bool is_hex_upper(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'F');
}

/* Stdout of a good verification: one fingerprint per line, at least one. */
static bool signers_read(const char *out, char *first)
{
	const char *line = out, *nl;
	char fpr[CHECK_FINGERPRINT_MAX + 1];
	size_t len;

	if (*out == '\0')
		return false;
	first[0] = '\0';
	while (*line != '\0') {
		nl = strchr(line, '\n');
		if (nl == NULL)
			return false;
		len = (size_t)(nl - line);
		if (len > CHECK_FINGERPRINT_MAX)
			return false;
		memcpy(fpr, line, len);
		fpr[len] = '\0';
		if (!check_fingerprint_valid(fpr))
			return false;
		if (first[0] == '\0')
			memcpy(first, fpr, len + 1);
		line = nl + 1;
	}
	return true;
}

/*
 * The key ID or fingerprint (16, 40 or 64 upper-case hex digits) right
 * after the first occurrence of prefix in err, or "" when there is none.
 */
static void hex_after(const char *err, const char *prefix, char *out)
{
	const char *p = strstr(err, prefix);
	size_t n = 0;

	out[0] = '\0';
	if (p == NULL)
		return;
	p += strlen(prefix);
	while (n < CHECK_FINGERPRINT_MAX && is_hex_upper(p[n]))
		n++;
	if ((n != 16 && n != 40 && n != 64) || is_hex_upper(p[n]))
		return;
	memcpy(out, p, n);
	out[n] = '\0';
}

static const char *covered(enum check_signature_kind kind)
{
	return kind == CHECK_SIG_TAR ? "the uncompressed tar inside the upload"
		: "the uploaded file";
}

static void failure_explain(enum check_signature_kind kind, const char *err, struct sig_result *r)
{
	char key[CHECK_FINGERPRINT_MAX + 1];

	hex_after(err, "Signing key on ", key);
	if (strstr(err, "Failed to parse keyring") != NULL)
		sig_say(r, CHECK_REFUSED, "your OpenPGP keyring on this server cannot be read by the "
		    "signature verifier: the server's admins must fix it (it must hold OpenPGP "
		    "certificates, binary or armored); your upload is not at fault");
	else if (strstr(err, "Reading \"/proc/self/fd/3\"") != NULL || strstr(err, "Malformed") != NULL ||
		 strstr(err, "Expected signature") != NULL)
		sig_say(r, CHECK_REFUSED, "the signature file is not an OpenPGP detached signature "
		    "(make it with gpg --detach-sign, binary for .sig and .tar.sign, --armor for .asc)");
	else if (strstr(err, "SHA1 is not considered secure") != NULL)
		sig_say(r, CHECK_REFUSED, "the signature uses the SHA-1 hash, which is refused as broken "
		    "(sign again with SHA-256 or better: gpg --digest-algo SHA512 --detach-sign)");
	else if (strstr(err, "Policy rejected") != NULL)
		sig_say(r, CHECK_REFUSED, "the signature uses an algorithm the verifier refuses as too "
		    "weak (sign again with a current key and hash, e.g. ed25519 or RSA >= 2048 bits "
		    "and SHA-512)");
	else if (strstr(err, "revoked") != NULL)
		sig_say(r, CHECK_REFUSED, "the key that made the signature%s%s is revoked (sign with a "
		    "valid key of your keyring, and have the admins replace the revoked one)",
		    key[0] != '\0' ? ", " : "", key);
	else if (strstr(err, "Not live until") != NULL)
		sig_say(r, CHECK_REFUSED, "the signature is dated in the future (check your computer's "
		    "clock, and sign again)");
	else if (strstr(err, "Expired on") != NULL || strstr(err, "not live") != NULL)
		sig_say(r, CHECK_REFUSED, "the key that made the signature%s%s had expired or was not "
		    "yet valid when the signature was made (extend its expiry with gpg "
		    "--quick-set-expire, have the admins update your keyring, and sign again)",
		    key[0] != '\0' ? ", " : "", key);
	else if (strstr(err, "Missing key ") != NULL) {
		hex_after(err, "Missing key ", key);
		sig_say(r, CHECK_REFUSED, "the signature was made by the key %s, which is not in your "
		    "keyring on this server (sign with a key of your keyring, or ask the admins to "
		    "add this one to it)", key[0] != '\0' ? key : "(unnamed)");
	} else if (strstr(err, "was created before the --not-before date") != NULL)
		sig_say(r, CHECK_REFUSED, "the signature was made longer ago than this server accepts "
		    "(signatures.max_age): sign the file again now (an old signature could be "
		    "back-dated with a key that has since expired or been replaced)");
	else if (strstr(err, "Message has been manipulated") != NULL)
		sig_say(r, CHECK_REFUSED, "the signature does not match %s: it is a signature of "
		    "another file, or the file changed after signing (sign exactly the file you "
		    "upload%s)", covered(kind),
		    kind == CHECK_SIG_TAR ? ", as kup does: xz -dc FILE | gpg --detach-sign" : "");
	else
		sig_say(r, CHECK_REFUSED, "the signature does not verify against your keyring on "
		    "this server (check it with: sqv --keyring YOUR-KEYRING SIGNATURE FILE)");
}

bool sig_tool_ended_badly(int wait_status, const char *name, const char *path,
			  const char *package, struct sig_result *r)
{
	if (WIFSIGNALED(wait_status)) {
		int sig = WTERMSIG(wait_status);

		if (sig == SIGXCPU || sig == SIGALRM || sig == SIGKILL)
			sig_say(r, CHECK_REFUSED, "verifying the signature took longer than the time limit");
		else
			sig_say(r, CHECK_REFUSED, "%s crashed on this signature (signal %d): sign again "
			    "with gpg --detach-sign", name, sig);
	} else if (!WIFEXITED(wait_status)) {
		sig_say(r, CHECK_INTERNAL, "%s ended in an unknown way", name);
	} else if (WEXITSTATUS(wait_status) == SIG_VERIFIER_SETUP_FAILED) {
		sig_say(r, CHECK_INTERNAL, "%s could not be confined", name);
	} else if (WEXITSTATUS(wait_status) == SIG_VERIFIER_EXEC_FAILED) {
		sig_say(r, CHECK_INTERNAL, "%s (%s) cannot be run: is the %s package installed?", name,
		    path, package);
	} else {
		return false;
	}
	return true;
}

void sig_verdict_read(enum check_signature_kind kind, int wait_status, const char *out,
		      size_t out_len, const char *err, size_t err_len, int truncated,
		      struct sig_result *r)
{
	static char out_text[OUTPUT_MAX + 1], err_text[OUTPUT_MAX + 1];

	memset(r, 0, sizeof(*r));
	text_of(out, out_len, out_text);
	text_of(err, err_len, err_text);
	if (sig_tool_ended_badly(wait_status, "the signature verifier", SIG_VERIFIER_PATH, "sqv", r))
		return;
	switch (WEXITSTATUS(wait_status)) {
	case 0:
		if (!truncated && out_len <= OUTPUT_MAX && signers_read(out_text, r->signer)) {
			r->outcome = CHECK_PASS;
			return;
		}
		sig_say(r, CHECK_INTERNAL, "the signature verifier reported success but named no "
		    "valid signer fingerprint");
		return;
	default:
		failure_explain(kind, err_text, r);
	}
}
