/*
 * bench/history's generator: a server's past, N releases of other modules
 * by other maintainers (module hmK with 100 releases each, user huK of 200),
 * written the way postern-installd leaves them: STATE/ledger lines, the
 * same changes as release log entries under TREE/log (tiles, bundles, vkey,
 * a checkpoint signed with the signer's key), STATE/history/log.size. The
 * index is left to the daemon, which rebuilds it from the ledger at start.
 * The signed checkpoint goes to stdout: the signer's "signed" file.
 *
 *   history_gen SKEYFILE TREE STATE N
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "log_entry.h"
#include "safefile.h"
#include "tlog_dir.h"
#include "tlog_note.h"

#define BATCH 1000

static void die(const char *what, const struct pst_err *e)
{
	fprintf(stderr, "history_gen: %s: %s\n", what, e != NULL ? e->msg : strerror(errno));
	exit(1);
}

static void load_key(const char *path, struct tlog_skey *k)
{
	struct pst_err e = {{0}};
	char *text;
	size_t len;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || sf_read_all(fd, TLOG_SKEY_MAX + 1, &text, &len, &e) < 0 ||
	    tlog_skey_parse(text, strcspn(text, "\n"), k, &e) < 0)
		die(path, &e);
	close(fd);
	free(text);
}

/* Release i: its ledger line and its entry's text. */
static size_t release(unsigned long i, FILE *ledger, char *entry, size_t cap)
{
	struct pst_err e = {{0}};
	struct log_entry le = {.op = "install", .signer = "-", .forced = "no", .attic = "-",
			       .nfiles = 2};
	unsigned long m = i / 100, v = i % 100;
	char file[64], when[32];
	struct tm tm;
	int n;

	le.when = 1262304000 + (time_t)i * 1500;    /* 2010 on, a release every 25 minutes */
	snprintf(le.module, sizeof(le.module), "hm%lu", m);
	snprintf(le.version, sizeof(le.version), "1.%lu", v);
	snprintf(le.uploader, sizeof(le.uploader), "hu%lu", i % 200);
	snprintf(file, sizeof(file), "hm%lu-1.%lu.tar.xz", m, v);
	snprintf(le.files[0].path, sizeof(le.files[0].path), "sources/hm%lu/1.%lu/%s", m, v, file);
	snprintf(le.files[0].sha256, 65, "%064lx", i);
	snprintf(le.files[1].path, sizeof(le.files[1].path), "sources/hm%lu/1.%lu/hm%lu-1.%lu.sha256sum",
		 m, v, m, v);
	snprintf(le.files[1].sha256, 65, "%064lx", i + 1);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&le.when, &tm));
	n = log_entry_format(&le, entry, cap, &e);
	if (n < 0)
		die("entry", &e);
	fprintf(ledger, "time=%s op=install user=%s module=%s version=%s file=%s sha256=%s "
		"maintainer=yes basis=maintainer dir=1.%lu forced=no attic=- signature=- signer=-\n",
		when, le.uploader, le.module, le.version,
		file, le.files[0].sha256, v);
	return (size_t)n;
}

int main(int argc, char **argv)
{
	static char text[BATCH][LOG_ENTRY_TEXT_MAX];
	struct tlog_dir d = {.rule = {.uid = SF_ANY_UID, .gid = SF_ANY_GID, .forbid = 022},
			     .how = {.mode = 0644, .uid = SF_ANY_UID, .gid = SF_ANY_GID}};
	struct tlog_entry batch[BATCH];
	struct tlog_checkpoint cp = {0};
	struct pst_err e = {{0}};
	struct tlog_skey k;
	char path[4096], body[512], note[TLOG_NOTE_MAX], vkey[TLOG_VKEY_MAX + 2];
	unsigned long n, i, j;
	FILE *ledger, *size;
	int len;

	if (argc != 5 || (n = strtoul(argv[4], NULL, 10)) == 0)
		return fprintf(stderr, "usage: history_gen SKEYFILE TREE STATE N\n"), 2;
	load_key(argv[1], &k);
	snprintf(path, sizeof(path), "%s/log", argv[2]);
	if (mkdir(path, 0755) != 0 || (d.fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		die(path, NULL);
	snprintf(path, sizeof(path), "%s/ledger", argv[3]);
	if ((ledger = fopen(path, "ae")) == NULL)
		die(path, NULL);
	for (i = 0; i < n; i += j) {
		for (j = 0; j < BATCH && i + j < n; j++)
			batch[j] = (struct tlog_entry){text[j], release(i + j, ledger, text[j], sizeof(text[j]))};
		if (tlog_append(&d, i, batch, j, &cp.root, &e) < 0)
			die("append", &e);
	}
	cp.size = n;
	snprintf(cp.origin, sizeof(cp.origin), "%s", k.vkey.name);
	len = tlog_checkpoint_format(&cp, body, sizeof(body), &e);
	len = len < 0 ? len : tlog_note_sign(&k, body, (size_t)len, note, sizeof(note), &e);
	tlog_vkey_format(&k.vkey, vkey);
	strcat(vkey, "\n");
	if (len < 0 || tlog_dir_write(&d, "vkey", vkey, strlen(vkey), &e) < 0 ||
	    tlog_dir_write(&d, "checkpoint", note, (size_t)len, &e) < 0)
		die("checkpoint", &e);
	snprintf(path, sizeof(path), "%s/history/log.size", argv[3]);
	if (fclose(ledger) != 0 || (size = fopen(path, "we")) == NULL ||
	    fprintf(size, "%lu\n", n) < 0 || fclose(size) != 0)
		die(path, NULL);
	tlog_skey_wipe(&k);
	fwrite(note, 1, (size_t)len, stdout);
	return 0;
}
