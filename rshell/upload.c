/*
 * Design note. rrsync is the path enforcer and rsync does the transfer;
 * this file only starts them. The child gets nothing from us but the
 * verified directory as its cwd, stdio and the environment built from
 * nothing; it runs as the maintainer, so nothing here is privileged. We
 * fork and wait rather than exec: the extra process costs nothing and it is
 * the only way to know, and log, how the upload ended.
 */
#define _GNU_SOURCE
#include "upload.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "audit_list.h"
#include "build_config.h"
#include "incoming_quota.h"
#include "rsync_args.h"
#include "spawn.h"

#define SNAPSHOT_MAX 4096
#define FILES_LIST_MAX 1024

struct snapshot {
	char **names;
	size_t n;
	bool complete;     /* false when the directory held more than SNAPSHOT_MAX names */
};

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void snapshot_free(struct snapshot *snap)
{
	size_t i;

	for (i = 0; i < snap->n; i++)
		free(snap->names[i]);
	free(snap->names);
	snap->names = NULL;
	snap->n = 0;
}

static void snapshot_take(int dirfd, struct snapshot *snap)
{
	struct dirent *de;
	DIR *d;
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	snap->names = calloc(SNAPSHOT_MAX, sizeof(char *));
	snap->n = 0;
	snap->complete = false;
	d = fd >= 0 ? fdopendir(fd) : NULL;
	if (d == NULL || snap->names == NULL) {
		if (fd >= 0)
			close(fd);
		return;
	}
	snap->complete = true;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (snap->n == SNAPSHOT_MAX || (snap->names[snap->n] = strdup(de->d_name)) == NULL) {
			snap->complete = false;
			break;
		}
		snap->n++;
	}
	closedir(d);
	qsort(snap->names, snap->n, sizeof(char *), name_cmp);
}

/*
 * Names in after but not in before, as an audit list (audit_list.h), so a
 * name holding ',' cannot pass for two; "-" when unknown. Returns how many
 * new names did not fit in one audit value.
 */
static size_t snapshot_new_names(const struct snapshot *before, const struct snapshot *after,
				 char *out, size_t outlen)
{
	size_t i, omitted = 0;

	out[0] = '\0';
	if (!before->complete || !after->complete) {
		snprintf(out, outlen, "-");
		return 0;
	}
	for (i = 0; i < after->n; i++) {
		if (bsearch(&after->names[i], before->names, before->n, sizeof(char *), name_cmp))
			continue;
		if (!audit_list_add(out, outlen, after->names[i]))
			omitted++;
	}
	return omitted;
}

/* rsync's exit status for an error in file I/O: a write over RLIMIT_FSIZE gives it. */
#define RSYNC_EXIT_FILEIO 11

static void child_exec(int dirfd, uint64_t max_file, char *const envp[])
{
	const char *const argv[] = { POSTERN_RRSYNC, RRSYNC_FLAGS, ".", NULL };
	/* Kernel-enforced, whatever size the sender announced: a larger file
	 * fails with EFBIG as it is written (SIGXFSZ ignored), and rsync drops
	 * its temporary file. */
	const struct rlimit fsize = { (rlim_t)max_file, (rlim_t)max_file };

	if (fchdir(dirfd) != 0) {
		fprintf(stderr, "postern-shell: cannot enter your incoming directory\n");
		_exit(1);
	}
	fds_close_from(3);
	if (setrlimit(RLIMIT_FSIZE, &fsize) != 0) {
		fprintf(stderr, "postern-shell: cannot limit the upload's file size\n");
		_exit(1); /* fail safe */
	}
	signal(SIGXFSZ, SIG_IGN);
	signal(SIGPIPE, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGQUIT, SIG_DFL);
	execve(argv[0], (char *const *)argv, envp);
	fprintf(stderr, "postern-shell: cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(1); /* fail safe */
}

/* Give the ssh channel's stdin and stdout to the child alone, so the
 * client sees end of file when rrsync ends, not when we do. */
static void parent_release_stdio(void)
{
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		close(null);
	}
}

static int wait_status(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return 1;
	}
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}

static void upload_explain_size(uint64_t max_file)
{
	char text[32];

	incoming_size_text(max_file, text, sizeof(text));
	fprintf(stderr, "postern-shell: the upload failed writing a file; each file may be at "
		"most %s (limits.max_compressed): a larger one is refused as it is written, "
		"and nothing of it is kept\n", text);
}

int upload_run(int dirfd, uint64_t max_file, char *const envp[], const struct audit_session *s)
{
	struct snapshot before;
	struct snapshot after;
	char files[FILES_LIST_MAX];
	char exit_text[16], omitted_text[24];
	size_t omitted;
	pid_t pid;
	int status;

	snapshot_take(dirfd, &before);
	/* A dropped connection must not stop us from logging how it ended. */
	signal(SIGHUP, SIG_IGN);
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "postern-shell: cannot start rrsync: %s\n", strerror(errno));
		snapshot_free(&before);
		return 1;
	}
	if (pid == 0)
		child_exec(dirfd, max_file, envp);
	parent_release_stdio();
	status = wait_status(pid);
	if (status == RSYNC_EXIT_FILEIO)
		upload_explain_size(max_file);
	snapshot_take(dirfd, &after);
	omitted = snapshot_new_names(&before, &after, files, sizeof(files));
	snprintf(exit_text, sizeof(exit_text), "%d", status);
	snprintf(omitted_text, sizeof(omitted_text), "%zu", omitted);
	/* files_omitted, last and only when names were left out. */
	audit_emit(status == 0 ? LOG_INFO : LOG_NOTICE, "upload_done", s,
		   "status", status == 0 ? "ok" : "failed", "exit", exit_text,
		   "files", files[0] ? files : "-",
		   omitted > 0 ? "files_omitted" : NULL, omitted_text, NULL);
	snapshot_free(&before);
	snapshot_free(&after);
	return status;
}
