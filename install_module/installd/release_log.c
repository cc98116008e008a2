/* Appending to the release log and getting it signed (release_log.h). */
#define _GNU_SOURCE
#include "release_log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "logsign.h"
#include "safefile.h"
#include "tlog_note.h"
#include "tlog_proof_file.h"
#include "tlog_tile.h"

struct log_head {
	struct tlog_dir dir;
	bool have_vkey;
	struct tlog_vkey vkey;
	struct tlog_checkpoint cp;     /* size 0 before the first entry */
};

static const char vanished[] =
	"the release log <tree>/log has vanished but the state says it had entries; it is never "
	"restarted silently: restore it from a mirror or a backup (RELEASES.md, \"The release log\")";

static int open_log(int tree_fd, bool create, struct log_head *h, struct pst_err *e)
{
	h->dir.fd = openat(tree_fd, "log", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (h->dir.fd < 0 && errno == ENOENT && create) {
		if (mkdirat(tree_fd, "log", 0755) != 0 && errno != EEXIST)
			return pst_fail(e, errno, "cannot make <tree>/log: %s", strerror(errno));
		h->dir.fd = openat(tree_fd, "log", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	}
	if (h->dir.fd < 0)
		return errno == ENOENT && !create ? -ENOENT
		       : pst_fail(e, errno, "cannot open <tree>/log: %s", strerror(errno));
	/* Everything in the log is the daemon's own and world-readable, never writable by others. */
	h->dir.rule = (struct sf_rule){.uid = geteuid(), .gid = SF_ANY_GID, .forbid = 022};
	h->dir.how = (struct sf_new){.mode = 0644, .uid = SF_ANY_UID, .gid = SF_ANY_GID};
	return 0;
}

/* open_log, where a missing log is the state's disagreement, never "no log yet". */
static int open_log_expected(int tree_fd, bool create, struct log_head *h, struct pst_err *e)
{
	int rc = open_log(tree_fd, create, h, e);

	return rc == -ENOENT ? pst_fail(e, ENOENT, "%s", vanished) : rc;
}

static int read_head(struct log_head *h, struct pst_err *e)
{
	unsigned char *data;
	size_t len;
	int body, rc = tlog_dir_read(&h->dir, "vkey", TLOG_VKEY_MAX + 1, &data, &len, e);

	memset(&h->cp, 0, sizeof(h->cp));
	tlog_empty_hash(&h->cp.root);
	h->have_vkey = rc == 0;
	if (rc == 0) {
		rc = tlog_vkey_parse((char *)data, strcspn((char *)data, "\n"), &h->vkey, e);
		free(data);
	}
	if (rc < 0 && rc != -ENOENT)
		return rc;
	rc = tlog_dir_read(&h->dir, "checkpoint", TLOG_NOTE_MAX, &data, &len, e);
	if (rc == -ENOENT)
		return 0;
	if (rc < 0)
		return rc;
	if (!h->have_vkey) {
		free(data);
		return pst_fail(e, EBADMSG, "<tree>/log has a checkpoint but no vkey to check it with");
	}
	body = tlog_note_open(&h->vkey, (char *)data, len, e);
	rc = body < 0 ? body : tlog_checkpoint_parse((char *)data, (size_t)body, &h->cp, e);
	free(data);
	if (rc < 0)
		pst_err_prefix(e, "<tree>/log/checkpoint");
	return rc;
}

static int request_text(const struct log_head *h, uint64_t size, const struct tlog_hash *root,
			char *out, size_t cap, struct pst_err *e)
{
	struct tlog_tiles tiles;
	struct tlog_proof p;
	char b64[45];
	size_t i;
	int n, rc;

	tlog_tiles_init(&tiles, tlog_dir_read, (void *)&h->dir, size);
	rc = tlog_prove_consistency(tlog_tiles_node, &tiles, h->cp.size, size, &p, e);
	tlog_tiles_free(&tiles);
	if (rc < 0)
		return rc;
	tlog_hash_b64(root, b64);
	n = snprintf(out, cap, "postern-logsign 1\nold %llu\nnew %llu %s\n",
		     (unsigned long long)h->cp.size, (unsigned long long)size, b64);
	for (i = 0; i < p.n && n > 0 && (size_t)n < cap; i++) {
		tlog_hash_b64(&p.h[i], b64);
		n += snprintf(out + n, cap - (size_t)n, "proof %s\n", b64);
	}
	return n > 0 && (size_t)n < cap ? n : pst_fail(e, E2BIG, "a signing request is too long");
}

/* One request, one answer, over a fresh connection to the signer. */
static int ask_signer(const char *path, const char *req, size_t len, char *answer, size_t cap,
		      struct pst_err *e)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	size_t got = 0;
	ssize_t n;
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path))
		return pst_fail(e, ENAMETOOLONG, "the signer's socket path is too long");
	memcpy(sa.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
	    sf_write_full(fd, req, len) < 0 || shutdown(fd, SHUT_WR) != 0) {
		int err = errno;

		if (fd >= 0)
			close(fd);
		return pst_fail(e, err, "the release log's signer (%s) cannot be reached: %s; start "
				"postern-logsign.socket", path, strerror(err));
	}
	while (got + 1 < cap && (n = read(fd, answer + got, cap - 1 - got)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	answer[got] = '\0';
	return (int)got;
}

/* The signer's answer must be our key's signature on exactly our tree. */
static int check_answer(struct log_head *h, const char *answer, uint64_t size,
			const struct tlog_hash *root, const char **note, struct pst_err *e)
{
	const char *nl = strchr(answer, '\n');
	struct tlog_checkpoint cp;
	struct tlog_vkey k;
	int body;

	if (strncmp(answer, "refused ", 8) == 0)
		return pst_fail(e, EPERM, "the release log's signer refused: %.*s",
				(int)strcspn(answer + 8, "\n"), answer + 8);
	if (strncmp(answer, "ok ", 3) != 0 || nl == NULL ||
	    tlog_vkey_parse(answer + 3, (size_t)(nl - answer - 3), &k, e) < 0)
		return pst_fail(e, EPROTO, "the release log's signer gave no answer it could mean");
	if (h->have_vkey && (strcmp(k.name, h->vkey.name) != 0 || memcmp(k.pub, h->vkey.pub, 32) != 0))
		return pst_fail(e, EPERM, "the signer's key is not the one <tree>/log/vkey publishes: "
				"a new key would break every mirror's pinned key; restore the signer's key");
	body = tlog_note_open(&k, nl + 1, strlen(nl + 1), e);
	if (body < 0 || tlog_checkpoint_parse(nl + 1, (size_t)body, &cp, e) < 0 ||
	    cp.size != size || !tlog_hash_equal(&cp.root, root) || strcmp(cp.origin, k.name) != 0)
		return pst_fail(e, EPROTO, "the signer's checkpoint is not the one asked for");
	h->vkey = k;
	*note = nl + 1;
	return 0;
}

static int publish(struct log_head *h, const char *note, struct pst_err *e)
{
	char vkey[TLOG_VKEY_MAX + 1];
	int rc = 0;

	if (!h->have_vkey) {
		tlog_vkey_format(&h->vkey, vkey);
		strcat(vkey, "\n");
		rc = tlog_dir_write(&h->dir, "vkey", vkey, strlen(vkey), e);
	}
	return rc < 0 ? rc : tlog_dir_write(&h->dir, "checkpoint", note, strlen(note), e);
}

static int append_open(struct log_head *h, const char *sign_socket, uint64_t expect_size,
		       const struct tlog_entry *entries, size_t n, struct pst_err *e)
{
	char req[LOGSIGN_REQUEST_MAX], answer[LOGSIGN_ANSWER_MAX];
	const char *note = NULL;
	struct tlog_hash root;
	int rc = read_head(h, e), len;

	if (rc < 0)
		return rc;
	if (h->cp.size != expect_size)
		return pst_fail(e, EBADMSG, "the release log has %llu entries but the state says %llu: "
				"the log and the ledger disagree, nothing is changed; see RELEASES.md, "
				"\"The release log\"", (unsigned long long)h->cp.size,
				(unsigned long long)expect_size);
	rc = tlog_append(&h->dir, expect_size, entries, n, &root, e);
	len = rc < 0 ? rc : request_text(h, expect_size + n, &root, req, sizeof(req), e);
	len = len < 0 ? len : ask_signer(sign_socket, req, (size_t)len, answer, sizeof(answer), e);
	rc = len < 0 ? len : check_answer(h, answer, expect_size + n, &root, &note, e);
	return rc < 0 ? rc : publish(h, note, e);
}

int release_log_append(int tree_fd, const char *sign_socket, uint64_t expect_size,
		       const struct tlog_entry *entries, size_t n, struct pst_err *e)
{
	struct log_head h;
	int rc = open_log_expected(tree_fd, expect_size == 0, &h, e);

	if (rc < 0)
		return rc;
	rc = append_open(&h, sign_socket, expect_size, entries, n, e);
	close(h.dir.fd);
	return rc;
}

int release_log_size(int tree_fd, uint64_t *size, struct pst_err *e)
{
	struct log_head h;
	int rc = open_log(tree_fd, false, &h, e);

	*size = 0;
	if (rc == -ENOENT)
		return 0;
	if (rc < 0)
		return rc;
	rc = read_head(&h, e);
	close(h.dir.fd);
	*size = h.cp.size;
	return rc;
}

int release_log_leaf(int tree_fd, uint64_t size, uint64_t index, struct tlog_hash *leaf,
		     struct pst_err *e)
{
	struct tlog_tiles tiles;
	struct log_head h;
	int rc = open_log_expected(tree_fd, false, &h, e);

	if (rc < 0)
		return rc;
	rc = read_head(&h, e);
	if (rc == 0 && (h.cp.size != size || index >= size))
		rc = pst_fail(e, EBADMSG, "the release log has %llu entries, not the %llu expected",
			      (unsigned long long)h.cp.size, (unsigned long long)size);
	if (rc == 0) {
		tlog_tiles_init(&tiles, tlog_dir_read, &h.dir, size);
		rc = tlog_tiles_node(&tiles, 0, index, leaf, e);
		tlog_tiles_free(&tiles);
	}
	close(h.dir.fd);
	return rc;
}

/* f's proof and note: entry index under the checkpoint h verified. */
static int proof_of(const struct log_head *h, uint64_t index, struct tlog_proof_file *f,
		    unsigned char **note, struct pst_err *e)
{
	struct tlog_checkpoint cp;
	size_t len;
	int rc = tlog_proof_file_prove(tlog_dir_read, (void *)&h->dir, h->cp.size, index, f, e);

	if (rc == 0)
		rc = tlog_dir_read((void *)&h->dir, "checkpoint", TLOG_NOTE_MAX, note, &len, e);
	if (rc < 0)
		return rc;
	f->note = (const char *)*note;
	f->note_len = len;
	/* Proved as a user will: the note read again must be the one verified. */
	rc = tlog_proof_file_check(f, &h->vkey, &cp, e);
	if (rc == 0 && (cp.size != h->cp.size || !tlog_hash_equal(&cp.root, &h->cp.root)))
		rc = pst_fail(e, EBADMSG, "<tree>/log/checkpoint changed while it was read");
	return rc;
}

int release_log_proof(int tree_fd, uint64_t size, uint64_t index, const char *entry,
		      size_t entry_len, char *out, size_t cap, struct pst_err *e)
{
	struct tlog_proof_file *f = calloc(1, sizeof(*f));
	unsigned char *note = NULL;
	struct log_head h;
	int rc = f == NULL ? pst_fail(e, ENOMEM, "out of memory")
		: open_log_expected(tree_fd, false, &h, e);

	if (rc < 0) {
		free(f);
		return rc;
	}
	rc = entry_len > sizeof(f->extra) ? pst_fail(e, E2BIG, "a log entry too long to prove")
		: read_head(&h, e);
	if (rc == 0 && (h.cp.size != size || index >= size))
		rc = pst_fail(e, EBADMSG, "the release log has %llu entries, not the %llu expected",
			      (unsigned long long)h.cp.size, (unsigned long long)size);
	if (rc == 0) {
		memcpy(f->extra, entry, entry_len);
		f->extra_len = entry_len;
		rc = proof_of(&h, index, f, &note, e);
	}
	if (rc == 0)
		rc = tlog_proof_file_format(f, out, cap, e);
	close(h.dir.fd);
	free(note);
	free(f);
	return rc;
}

int release_log_signer_ready(const char *sign_socket, struct pst_err *e)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd, err;

	if (strlen(sign_socket) >= sizeof(sa.sun_path))
		return pst_fail(e, ENAMETOOLONG, "the signer's socket path is too long");
	memcpy(sa.sun_path, sign_socket, strlen(sign_socket) + 1);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
		close(fd);
		return 0;
	}
	err = errno;
	if (fd >= 0)
		close(fd);
	return pst_fail(e, err, "the release log's signer (%s) cannot be reached: %s; nothing "
			"was changed; start postern-logsign.socket (DEPLOY.md)", sign_socket,
			strerror(err));
}

int release_log_drop_temps(int tree_fd, struct pst_err *e)
{
	struct log_head h;
	int rc = open_log(tree_fd, false, &h, e);

	if (rc == -ENOENT)
		return 0;
	if (rc < 0)
		return rc;
	rc = sf_drop_temps(h.dir.fd, e);
	close(h.dir.fd);
	return rc;
}
