/*
 * The tests' log writer, until postern-installd writes the log itself:
 *   make-log keygen NAME SKEYFILE VKEYFILE
 *   make-log append SKEYFILE LOGDIR ENTRYFILE...
 *   make-log proof VKEYFILE LOGDIR INDEX ENTRYFILE OUT
 * append extends the log from its current checkpoint (none: empty) with the
 * entries (each file one entry, checked with log_entry_parse), writes the
 * tiles, then the checkpoint signed with the key: the order and library
 * calls the daemon will make. proof writes the c2sp.org/tlog-proof of entry
 * INDEX (whose text is ENTRYFILE) under the current checkpoint, as the
 * daemon does beside each release.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log_entry.h"
#include "safefile.h"
#include "tlog_dir.h"
#include "tlog_note.h"
#include "tlog_proof_file.h"

static int fail(const char *what, const struct pst_err *e)
{
	fprintf(stderr, "make-log: %s: %s\n", what, e->msg);
	return 1;
}

static int read_file(const char *path, size_t max, char **out, size_t *len, struct pst_err *e)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc;

	if (fd < 0)
		return pst_fail(e, errno, "%s: %s", path, strerror(errno));
	rc = sf_read_all(fd, max, out, len, e);
	close(fd);
	return rc;
}

static int keygen(char **argv)
{
	struct tlog_skey k;
	struct pst_err e = {{0}};
	char skey[TLOG_SKEY_MAX + 1], vkey[TLOG_VKEY_MAX + 1];
	FILE *s, *v;

	if (tlog_keygen(argv[0], &k, &e) < 0)
		return fail("keygen", &e);
	tlog_skey_format(&k, skey);
	tlog_vkey_format(&k.vkey, vkey);
	tlog_skey_wipe(&k);
	s = fopen(argv[1], "wxe");
	v = fopen(argv[2], "we");
	if (s == NULL || v == NULL)
		return fprintf(stderr, "make-log: cannot write the keys\n"), 1;
	fprintf(s, "%s\n", skey);
	fprintf(v, "%s\n", vkey);
	return fclose(s) != 0 || fclose(v) != 0;
}

/* The log's current size: its checkpoint, verified with our own key. */
static int current(struct tlog_dir *d, const struct tlog_skey *k, uint64_t *size,
		   struct pst_err *e)
{
	struct tlog_checkpoint cp;
	unsigned char *note;
	size_t len;
	int body, rc = tlog_dir_read(d, "checkpoint", TLOG_NOTE_MAX, &note, &len, e);

	*size = 0;
	if (rc == -ENOENT)
		return 0;
	if (rc < 0)
		return rc;
	body = tlog_note_open(&k->vkey, (char *)note, len, e);
	rc = body < 0 ? body : tlog_checkpoint_parse((char *)note, (size_t)body, &cp, e);
	free(note);
	*size = cp.size;
	return rc;
}

static int append(int argc, char **argv)
{
	struct tlog_dir d = {.rule = {.uid = SF_ANY_UID, .gid = SF_ANY_GID, .forbid = 022},
			     .how = {.mode = 0644, .uid = SF_ANY_UID, .gid = SF_ANY_GID}};
	struct tlog_entry *entries = calloc((size_t)argc, sizeof(*entries));
	struct tlog_checkpoint cp = {0};
	struct pst_err e = {{0}};
	struct tlog_skey k;
	struct log_entry le;
	char *skey, body[512], note[TLOG_NOTE_MAX];
	size_t len;
	int i, n, rc;

	if (read_file(argv[0], TLOG_SKEY_MAX + 1, &skey, &len, &e) < 0)
		return fail("key", &e);
	rc = tlog_skey_parse(skey, strcspn(skey, "\n"), &k, &e);
	explicit_bzero(skey, len);
	free(skey);
	if (rc < 0)
		return fail("key", &e);
	d.fd = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (d.fd < 0 || current(&d, &k, &cp.size, &e) < 0)
		return fail(argv[1], &e);
	for (i = 2; i < argc; i++) {
		char *text;

		if (read_file(argv[i], LOG_ENTRY_TEXT_MAX, &text, &len, &e) < 0 ||
		    log_entry_parse(text, len, &le, &e) < 0)
			return fail(argv[i], &e);
		entries[i - 2] = (struct tlog_entry){text, len};
	}
	if (tlog_append(&d, cp.size, entries, (size_t)argc - 2, &cp.root, &e) < 0)
		return fail("append", &e);
	cp.size += (uint64_t)argc - 2;
	snprintf(cp.origin, sizeof(cp.origin), "%s", k.vkey.name);
	n = tlog_checkpoint_format(&cp, body, sizeof(body), &e);
	n = n < 0 ? n : tlog_note_sign(&k, body, (size_t)n, note, sizeof(note), &e);
	if (n < 0 || tlog_dir_write(&d, "checkpoint", note, (size_t)n, &e) < 0)
		return fail("checkpoint", &e);
	tlog_skey_wipe(&k);
	for (i = 0; i < argc - 2; i++)
		free((void *)entries[i].data);
	free(entries);
	close(d.fd);
	return 0;
}

static int proof(char **argv)
{
	struct tlog_dir d = {.rule = {.uid = SF_ANY_UID, .gid = SF_ANY_GID, .forbid = 022}};
	struct tlog_proof_file *f = calloc(1, sizeof(*f));
	struct tlog_checkpoint cp;
	struct tlog_vkey k;
	struct pst_err e = {{0}};
	char *vkey, *entry, *out = malloc(TLOG_PROOF_FILE_MAX);
	unsigned char *note;
	size_t len, note_len;
	int body, n;
	FILE *o;

	if (f == NULL || out == NULL || read_file(argv[0], TLOG_VKEY_MAX + 1, &vkey, &len, &e) < 0 ||
	    tlog_vkey_parse(vkey, strcspn(vkey, "\n"), &k, &e) < 0)
		return fail("key", &e);
	d.fd = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (d.fd < 0 || tlog_dir_read(&d, "checkpoint", TLOG_NOTE_MAX, &note, &note_len, &e) < 0)
		return fail(argv[1], &e);
	body = tlog_note_open(&k, (char *)note, note_len, &e);
	if (body < 0 || tlog_checkpoint_parse((char *)note, (size_t)body, &cp, &e) < 0)
		return fail("checkpoint", &e);
	if (read_file(argv[3], sizeof(f->extra), &entry, &len, &e) < 0)
		return fail(argv[3], &e);
	memcpy(f->extra, entry, len);
	f->extra_len = len;
	f->note = (char *)note;
	f->note_len = note_len;
	if (tlog_proof_file_prove(tlog_dir_read, &d, cp.size, strtoull(argv[2], NULL, 10), f, &e) < 0 ||
	    (n = tlog_proof_file_format(f, out, TLOG_PROOF_FILE_MAX, &e)) < 0)
		return fail("proof", &e);
	o = fopen(argv[4], "we");
	if (o == NULL || fwrite(out, 1, (size_t)n, o) != (size_t)n || fclose(o) != 0)
		return fprintf(stderr, "make-log: cannot write %s\n", argv[4]), 1;
	free(vkey);
	free(entry);
	free(note);
	free(out);
	free(f);
	close(d.fd);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 7 && strcmp(argv[1], "proof") == 0)
		return proof(argv + 2);
	if (argc == 5 && strcmp(argv[1], "keygen") == 0)
		return keygen(argv + 2);
	if (argc >= 5 && strcmp(argv[1], "append") == 0)
		return append(argc - 2, argv + 2);
	fprintf(stderr, "usage: make-log keygen NAME SKEYFILE VKEYFILE\n"
			"       make-log append SKEYFILE LOGDIR ENTRYFILE...\n"
			"       make-log proof VKEYFILE LOGDIR INDEX ENTRYFILE OUT\n");
	return 2;
}
