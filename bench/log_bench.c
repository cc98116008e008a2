/*
 * The driver of bench/log: the cost of one change to the release log (one
 * entry appended: bundle and hash tiles written atomically, the root read
 * back from the tiles, the checkpoint signed and written) on a log of
 * SMALL entries and on one of LARGE, taking turns, ROUNDS times each.
 * Prints the medians and the ratio large/small (goal: 1.0 within noise:
 * the cost must not grow with history).
 *
 *   log_bench DIR SMALL LARGE ROUNDS
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tlog_dir.h"
#include "tlog_note.h"

#define ENTRY "postern-entry 1\nop install\ntime 2026-12-07T03:00:00Z\nmodule m%llu\n" \
	"version 1.%llu\nuploader alice\nsigner -\nforced no\nattic -\n" \
	"file sources/m/1/m-1.%llu.tar.xz 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n"

struct log {
	struct tlog_dir d;
	uint64_t size;
};

static void die(const char *what, const struct pst_err *e)
{
	fprintf(stderr, "log_bench: %s: %s\n", what, e->msg);
	exit(1);
}

static void grow(struct log *l, uint64_t n)
{
	static char text[1000][400];
	struct tlog_entry batch[1000];
	struct pst_err e = {{0}};
	struct tlog_hash root;
	uint64_t k;

	while (n > 0) {
		size_t b = n > 1000 ? 1000 : (size_t)n;

		for (k = 0; k < b; k++) {
			unsigned long long i = l->size + k;

			snprintf(text[k], sizeof(text[k]), ENTRY, i, i, i);
			batch[k] = (struct tlog_entry){text[k], strlen(text[k])};
		}
		if (tlog_append(&l->d, l->size, batch, b, &root, &e) < 0)
			die("append", &e);
		l->size += b;
		n -= b;
	}
}

/* One change as the daemon makes it; returns its wall time in seconds. */
static double one_change(struct log *l, const struct tlog_skey *k)
{
	struct tlog_checkpoint cp = {.origin = "bench.test/log"};
	struct pst_err e = {{0}};
	struct timespec t0, t1;
	char text[400], body[256], note[TLOG_NOTE_MAX];
	struct tlog_entry entry;
	int n;

	snprintf(text, sizeof(text), ENTRY, (unsigned long long)l->size,
		 (unsigned long long)l->size, (unsigned long long)l->size);
	entry = (struct tlog_entry){text, strlen(text)};
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (tlog_append(&l->d, l->size, &entry, 1, &cp.root, &e) < 0)
		die("append", &e);
	cp.size = ++l->size;
	n = tlog_checkpoint_format(&cp, body, sizeof(body), &e);
	n = n < 0 ? n : tlog_note_sign(k, body, (size_t)n, note, sizeof(note), &e);
	if (n < 0 || tlog_dir_write(&l->d, "checkpoint", note, (size_t)n, &e) < 0)
		die("checkpoint", &e);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void open_log(struct log *l, const char *top, const char *name)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", top, name);
	if (mkdir(path, 0755) != 0)
		perror(path), exit(1);
	l->d.fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	l->d.rule = (struct sf_rule){.uid = SF_ANY_UID, .gid = SF_ANY_GID, .forbid = 022};
	l->d.how = (struct sf_new){.mode = 0644, .uid = SF_ANY_UID, .gid = SF_ANY_GID};
	l->size = 0;
}

int main(int argc, char **argv)
{
	struct log small, large;
	struct tlog_skey k;
	struct pst_err e = {{0}};
	double *ts, *tl;
	int rounds, i;

	if (argc != 5)
		return fprintf(stderr, "usage: log_bench DIR SMALL LARGE ROUNDS\n"), 2;
	rounds = atoi(argv[4]);
	ts = calloc((size_t)rounds, sizeof(*ts));
	tl = calloc((size_t)rounds, sizeof(*tl));
	if (tlog_keygen("bench.test/log", &k, &e) < 0)
		die("keygen", &e);
	open_log(&small, argv[1], "small");
	open_log(&large, argv[1], "large");
	grow(&small, strtoull(argv[2], NULL, 10));
	grow(&large, strtoull(argv[3], NULL, 10));
	for (i = 0; i < rounds; i++) {
		ts[i] = one_change(&small, &k);
		tl[i] = one_change(&large, &k);
	}
	qsort(ts, (size_t)rounds, sizeof(*ts), cmp);
	qsort(tl, (size_t)rounds, sizeof(*tl), cmp);
	printf("one log change (append + tiles + signed checkpoint), median of %d:\n", rounds);
	printf("  log of %s entries: %.3f ms\n", argv[2], ts[rounds / 2] * 1e3);
	printf("  log of %s entries: %.3f ms\n", argv[3], tl[rounds / 2] * 1e3);
	printf("  ratio large/small: %.2f (goal: 1.0 within noise)\n", tl[rounds / 2] / ts[rounds / 2]);
	tlog_skey_wipe(&k);
	return 0;
}
