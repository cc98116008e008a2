/*
 * postern-verify: proves downloaded releases, or a whole mirror, against a
 * postern release log and its pinned key (man postern-verify(1)).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "http_log.h"
#include "verify.h"

static const char usage[] =
	"usage: postern-verify --vkey FILE|KEY --log DIR|URL [--state DIR] FILE...\n"
	"       postern-verify --vkey FILE|KEY FILE...   (offline: each FILE.tlog-proof)\n"
	"       postern-verify --vkey FILE|KEY --mirror TREE [--log DIR|URL] [--state DIR]\n"
	"\n"
	"Proves each FILE (by name and SHA-256) released in the log, or with --mirror\n"
	"that the tree holds exactly the files its log publishes.\n"
	"\n"
	"  --vkey FILE|KEY  the log's verifier key (<name>+<id>+<base64>), or a file holding it\n"
	"  --log DIR|URL    the log: a directory or an http(s) URL (default: TREE/log;\n"
	"                   without it, each FILE is proved by the FILE.tlog-proof beside it)\n"
	"  --state DIR      remember the checkpoint; refuse one that is not an extension\n"
	"  --mirror TREE    check a whole mirror of the tree\n"
	"  --help           this text\n"
	"\n"
	"Exit status: 0 verified, 1 a file or the mirror does not match the log,\n"
	"2 the log or the key cannot be used, 3 the log forked from the remembered one.\n";

struct options {
	const char *vkey, *log, *state, *mirror;
};

static int die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "postern-verify: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return VERIFY_ERROR;
}

static int load_vkey(const char *arg, struct tlog_vkey *k)
{
	struct pst_err e = {{0}};

	return verify_load_vkey(arg, k, &e) < 0 ? die("--vkey %s", e.msg) : 0;
}

static int open_dir(const char *path, const char *what)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		die("%s %s: cannot open it as a directory: %s", what, path, strerror(errno));
	return fd;
}

static int parse(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{"vkey", required_argument, NULL, 'k'}, {"log", required_argument, NULL, 'l'},
		{"state", required_argument, NULL, 's'}, {"mirror", required_argument, NULL, 'm'},
		{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0},
	};
	int c;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'k': o->vkey = optarg; break;
		case 'l': o->log = optarg; break;
		case 's': o->state = optarg; break;
		case 'm': o->mirror = optarg; break;
		case 'h': fputs(usage, stdout); exit(0);
		default: fputs(usage, stderr); return VERIFY_ERROR;
		}
	}
	if (o->vkey == NULL)
		return die("--vkey is required: pin the key the log's operator published");
	if (o->mirror == NULL && optind == argc)
		return die("nothing to verify: name downloaded files, or --mirror TREE");
	if (o->mirror != NULL && optind != argc)
		return die("--mirror checks a whole tree; name no files with it");
	if (o->log == NULL && o->mirror == NULL && o->state != NULL)
		return die("--state needs --log: an offline proof cannot show a fork");
	return VERIFY_OK;
}

static int run(struct options *o, int argc, char **argv, tlog_read_fn *read, void *arg,
	       const struct tlog_vkey *k)
{
	struct log_view v;
	struct pst_err e = {{0}};
	int rc = log_view_open(&v, read, arg, k, &e), tree_fd, state_fd, rs;

	if (rc != VERIFY_OK) {
		printf("%s the log: %s\n", rc == VERIFY_MISMATCH ? "MISMATCH" : "ERROR", e.msg);
		log_view_close(&v);
		return rc;
	}
	if (o->mirror != NULL) {
		tree_fd = open_dir(o->mirror, "--mirror");
		rc = tree_fd < 0 ? VERIFY_ERROR : verify_mirror(&v, tree_fd);
		if (tree_fd >= 0)
			close(tree_fd);
	} else {
		rc = verify_files(&v, argv + optind, argc - optind);
	}
	if (o->state != NULL) {
		state_fd = open_dir(o->state, "--state");
		rs = state_fd < 0 ? VERIFY_ERROR : verify_state(&v, state_fd);
		if (state_fd >= 0)
			close(state_fd);
		if (rs > rc || rs == VERIFY_FORK)
			rc = rs;
	}
	log_view_close(&v);
	return rc;
}

/* The log from a URL (libcurl) or a directory (read through its fd, no symlink followed). */
static int run_on_log(struct options *o, int argc, char **argv, const struct tlog_vkey *k)
{
	struct tlog_dir dir = {.rule = {.uid = SF_ANY_UID, .gid = SF_ANY_GID}};
	struct pst_err e = {{0}};
	struct http_log *h;
	int rc;

	if (strstr(o->log, "://") != NULL) {
		if (http_log_open(o->log, &h, &e) < 0)
			return die("--log %s", e.msg);
		rc = run(o, argc, argv, http_log_read, h, k);
		http_log_close(h);
		return rc;
	}
	dir.fd = open_dir(o->log, "--log");
	if (dir.fd < 0)
		return VERIFY_ERROR;
	rc = run(o, argc, argv, tlog_dir_read, &dir, k);
	close(dir.fd);
	return rc;
}

int main(int argc, char **argv)
{
	struct options o = {0};
	struct tlog_vkey k;
	char log_path[4096];
	int rc = parse(argc, argv, &o);

	if (rc != VERIFY_OK)
		return rc;
	if (load_vkey(o.vkey, &k) != 0)
		return VERIFY_ERROR;
	if (o.log == NULL && o.mirror == NULL)
		return verify_files_offline(&k, argv + optind, argc - optind);
	if (o.log == NULL) {
		snprintf(log_path, sizeof(log_path), "%s/log", o.mirror);
		o.log = log_path;
	}
	return run_on_log(&o, argc, argv, &k);
}
