/* The signer's decision and its files (logsign.h). */
#include "logsign.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "safefile.h"
#include "tlog.h"
#include "tlog_note.h"

static const struct sf_new secret = {.mode = 0600, .uid = SF_ANY_UID, .gid = SF_ANY_GID};

static struct sf_rule own_file(off_t max)
{
	/* Only this signer may have written or read it. */
	return (struct sf_rule){.type = S_IFREG, .uid = geteuid(), .gid = SF_ANY_GID,
				.forbid = 077, .max_size = max};
}

static int read_own(int dir_fd, const char *name, off_t max, char **text, size_t *len,
		    struct pst_err *e)
{
	struct sf_rule r = own_file(max);
	int fd = sf_openat(dir_fd, name, O_RDONLY, &r, NULL, e), rc;

	if (fd < 0)
		return fd;
	rc = sf_read_all(fd, (size_t)max, text, len, e);
	close(fd);
	return rc;
}

static int load_key(int dir_fd, struct tlog_skey *k, struct pst_err *e)
{
	char *text;
	size_t len;
	int rc = read_own(dir_fd, "key", TLOG_SKEY_MAX + 1, &text, &len, e);

	if (rc == -ENOENT)
		return pst_fail(e, ENOENT, "no signing key yet: run postern-logsign --keygen NAME as "
				"the signer's user (DEPLOY.md, \"The release log\")");
	if (rc < 0) {
		pst_err_prefix(e, "the signing key");
		return rc;
	}
	rc = tlog_skey_parse(text, strcspn(text, "\n"), k, e);
	explicit_bzero(text, len);
	free(text);
	return rc;
}

/* The last checkpoint signed: size 0 and the empty root before the first. */
static int load_signed(int dir_fd, const struct tlog_skey *k, struct tlog_checkpoint *cp,
		       char **note, struct pst_err *e)
{
	size_t len;
	int body, rc = read_own(dir_fd, "signed", TLOG_NOTE_MAX, note, &len, e);

	memset(cp, 0, sizeof(*cp));
	if (rc == -ENOENT) {
		*note = NULL;
		tlog_empty_hash(&cp->root);
		return 0;
	}
	if (rc < 0)
		return rc;
	body = tlog_note_open(&k->vkey, *note, len, e);
	rc = body < 0 ? body : tlog_checkpoint_parse(*note, (size_t)body, cp, e);
	if (rc < 0)
		pst_err_prefix(e, "the signer's last signed checkpoint is damaged; restore it from "
			       "a backup or from the published log/checkpoint");
	return rc;
}

static bool parse_u64(const char *s, uint64_t *out)
{
	char *end;

	if (*s < '0' || *s > '9' || (s[0] == '0' && s[1] != '\0'))
		return false;
	errno = 0;
	*out = strtoull(s, &end, 10);
	return errno == 0 && *end == '\0';
}

int logsign_parse_request(const char *req, size_t len, struct logsign_request *r,
			  struct pst_err *e)
{
	char buf[LOGSIGN_REQUEST_MAX + 1], *line, *save = NULL, *a, *b;
	int n = 0;

	memset(r, 0, sizeof(*r));
	if (len == 0 || len > LOGSIGN_REQUEST_MAX || memchr(req, '\0', len) != NULL ||
	    req[len - 1] != '\n')
		return pst_fail(e, EINVAL, "a request is at most %d bytes of text lines",
				LOGSIGN_REQUEST_MAX);
	memcpy(buf, req, len);
	buf[len] = '\0';
	for (line = strtok_r(buf, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save), n++) {
		a = strchr(line, ' ');
		b = a == NULL ? NULL : strchr(a + 1, ' ');
		if (n == 0 ? strcmp(line, "postern-logsign 1") != 0
		    : n == 1 ? strncmp(line, "old ", 4) != 0 || !parse_u64(line + 4, &r->old)
		    : n == 2 ? strncmp(line, "new ", 4) != 0 || b == NULL ||
				       (*b = '\0', !parse_u64(line + 4, &r->size)) ||
				       !tlog_hash_from_b64(b + 1, strlen(b + 1), &r->root)
			     : strncmp(line, "proof ", 6) != 0 || r->proof.n >= TLOG_PROOF_MAX ||
				       !tlog_hash_from_b64(line + 6, strlen(line + 6),
							   &r->proof.h[r->proof.n++]))
			return pst_fail(e, EINVAL, "request line %d is not what the protocol "
					"(postern-logsign 1) has there", n + 1);
	}
	if (n < 3)
		return pst_fail(e, EINVAL, "a request has the version, old and new lines");
	return 0;
}

static int refuse(char *answer, size_t cap, const char *why)
{
	int w = snprintf(answer, cap, "refused %s\n", why);

	return w < 0 || (size_t)w >= cap ? -E2BIG : w;
}

/* Whether r extends what was signed: the decision this process exists for. */
static bool extends(const struct tlog_checkpoint *last, const struct logsign_request *r, struct pst_err *e)
{
	/* The tree signed last, asked again: a daemon that died before publishing
	 * its checkpoint retries the same entry; signing it again tells nothing new. */
	if (r->size == last->size && r->size > 0 && tlog_hash_equal(&r->root, &last->root))
		return true;
	if (r->old != last->size)
		return pst_refuse(e, "the log's checkpoint has %llu entries but this signer last "
				  "signed %llu: the log and the signer disagree, so nothing is signed; "
				  "see DEPLOY.md, \"Log and signer disagree\"",
				  (unsigned long long)r->old, (unsigned long long)last->size);
	if (r->size < last->size)
		return pst_refuse(e, "a log of %llu entries cannot extend the %llu already signed",
				  (unsigned long long)r->size, (unsigned long long)last->size);
	if (!tlog_check_consistency(last->size, r->size, &last->root, &r->root, &r->proof))
		return pst_refuse(e, "the new tree of %llu entries is not a proved extension of the "
				  "%llu signed: its consistency proof fails, so it rewrites history",
				  (unsigned long long)r->size, (unsigned long long)last->size);
	return true;
}

static int sign_and_keep(int dir_fd, const struct tlog_skey *k, const struct logsign_request *r,
			 char *answer, size_t cap, struct pst_err *e)
{
	struct tlog_checkpoint cp = {.size = r->size, .root = r->root};
	char body[512], note[TLOG_NOTE_MAX], vkey[TLOG_VKEY_MAX];
	int n, w;

	memcpy(cp.origin, k->vkey.name, sizeof(cp.origin));
	n = tlog_checkpoint_format(&cp, body, sizeof(body), e);
	n = n < 0 ? n : tlog_note_sign(k, body, (size_t)n, note, sizeof(note), e);
	/* Kept before it is answered: a crash between never lets a second history be signed. */
	if (n < 0 || sf_write_atomic(dir_fd, "signed", note, (size_t)n, &secret, e) < 0)
		return -EIO;
	tlog_vkey_format(&k->vkey, vkey);
	w = snprintf(answer, cap, "ok %s\n%s", vkey, note);
	return w < 0 || (size_t)w >= cap ? -E2BIG : w;
}

static int answer_locked(int dir_fd, const char *req, size_t len, char *answer, size_t cap)
{
	struct pst_err e = {{0}};
	struct tlog_checkpoint last;
	struct tlog_skey k;
	struct logsign_request r;
	char *note = NULL;
	int rc;

	if (logsign_parse_request(req, len, &r, &e) < 0)
		return refuse(answer, cap, e.msg);
	if (load_key(dir_fd, &k, &e) < 0)
		return refuse(answer, cap, e.msg);
	if (load_signed(dir_fd, &k, &last, &note, &e) < 0 || !extends(&last, &r, &e))
		rc = refuse(answer, cap, e.msg);
	else
		rc = sign_and_keep(dir_fd, &k, &r, answer, cap, &e);
	if (rc == -EIO)
		rc = refuse(answer, cap, e.msg);
	tlog_skey_wipe(&k);
	free(note);
	return rc;
}

static int lock_dir(int dir_fd, struct pst_err *e)
{
	struct sf_rule r = own_file(0);
	int fd = sf_openat(dir_fd, "lock", O_RDWR | O_CREAT, &r, NULL, e);

	if (fd >= 0 && sf_lock(fd, true, e) < 0) {
		close(fd);
		return -EIO;
	}
	return fd;
}

int logsign_answer(int dir_fd, const char *req, size_t len, char *answer, size_t cap)
{
	struct pst_err e = {{0}};
	int lock = lock_dir(dir_fd, &e), rc;

	if (lock < 0) {
		pst_err_prefix(&e, "the signer's lock");
		return refuse(answer, cap, e.msg);
	}
	rc = answer_locked(dir_fd, req, len, answer, cap);
	close(lock);
	return rc;
}

int logsign_keygen(int dir_fd, const char *name, char *vkey, size_t cap, struct pst_err *e)
{
	struct sf_new pub = {.mode = 0644, .uid = SF_ANY_UID, .gid = SF_ANY_GID};
	char text[TLOG_SKEY_MAX + 1], v[TLOG_VKEY_MAX + 1];
	struct tlog_skey k;
	struct stat st;
	int lock = lock_dir(dir_fd, e), rc;

	if (lock < 0)
		return lock;
	if (fstatat(dir_fd, "key", &st, AT_SYMLINK_NOFOLLOW) == 0 || errno != ENOENT) {
		close(lock);
		return pst_fail(e, EEXIST, "a signing key exists already: a new key would make "
				"every mirror's pinned key useless; see DEPLOY.md to rotate it");
	}
	rc = tlog_keygen(name, &k, e);
	if (rc == 0) {
		tlog_skey_format(&k, text);
		strcat(text, "\n");
		tlog_vkey_format(&k.vkey, v);
		rc = sf_write_atomic(dir_fd, "key", text, strlen(text), &secret, e);
		explicit_bzero(text, sizeof(text));
	}
	if (rc == 0) {
		snprintf(vkey, cap, "%s", v);
		strcat(v, "\n");
		rc = sf_write_atomic(dir_fd, "vkey", v, strlen(v), &pub, e);
	}
	tlog_skey_wipe(&k);
	close(lock);
	return rc;
}

int logsign_vkey(int dir_fd, char *vkey, size_t cap, struct pst_err *e)
{
	char v[TLOG_VKEY_MAX];
	struct tlog_skey k;
	int rc = load_key(dir_fd, &k, e);

	if (rc == 0) {
		tlog_vkey_format(&k.vkey, v);
		snprintf(vkey, cap, "%s", v);
	}
	tlog_skey_wipe(&k);
	return rc;
}
