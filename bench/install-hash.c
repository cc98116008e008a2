/*
 * Driver for bench/install-hash: the daemon's staging copy and hash
 * (upload_stage() into a fresh O_TMPFILE in DIR, as postern-installd does),
 * then the archive rules on that copy (tarball_check(), as postern-check
 * does, here without its sandbox), once on FILE; prints the wall time in
 * seconds. Usage: install-hash-driver FILE DIR
 */
#define _GNU_SOURCE /* O_TMPFILE */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "release_name.h"
#include "tarball.h"
#include "upload_stage.h"

int main(int argc, char **argv)
{
	const struct upload_limits lim = { 2ULL << 30, 8ULL << 30, 200000, 100, 600, 0 };
	struct timespec t0, t1;
	struct release_name rn;
	struct tarball_expect x;
	struct tarball_result r;
	struct pst_err e;
	const char *base;
	struct upload_staged st;
	int upload, staging;

	if (argc != 3) {
		fprintf(stderr, "usage: install-hash-driver FILE DIR\n");
		return 2;
	}
	base = strrchr(argv[1], '/') != NULL ? strrchr(argv[1], '/') + 1 : argv[1];
	if (release_name_parse(base, &rn, &e) != 0) {
		fprintf(stderr, "install-hash-driver: %s: %s\n", base, e.msg);
		return 1;
	}
	x = (struct tarball_expect){ rn.module, rn.version, rn.compression, &lim };
	upload = open(argv[1], O_RDONLY | O_CLOEXEC);
	staging = open(argv[2], O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (upload < 0 || staging < 0) {
		perror("install-hash-driver: open");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (upload_stage(upload, staging, lim.max_compressed, &st, &e) != 0 ||
	    lseek(staging, 0, SEEK_SET) != 0 || tarball_check(staging, &x, &r, &e) != 0) {
		fprintf(stderr, "install-hash-driver: %s: %s\n", base, e.msg);
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("%.3f\n", (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	return 0;
}
